# Decides whether the Remote backend (a client in the engine, crossgrad-server beside it) is built:
# CROSSGRAD_WITH_REMOTE defaults to ON when gRPC (its CMake package) and protobuf (protoc and the
# library) are found, OFF otherwise; ON without them stops the configure. Says what it decided.
# Packages: scripts/deps remote.
find_package(Protobuf QUIET)
find_package(gRPC CONFIG QUIET)
set(crossgrad_remote_deps_found OFF)
if(Protobuf_FOUND AND Protobuf_PROTOC_EXECUTABLE AND gRPC_FOUND AND TARGET gRPC::grpc++
   AND TARGET gRPC::grpc_cpp_plugin)
  set(crossgrad_remote_deps_found ON)
endif()
option(CROSSGRAD_WITH_REMOTE "Build the Remote backend and crossgrad-server (needs gRPC + protobuf)"
       ${crossgrad_remote_deps_found})
if(CROSSGRAD_WITH_REMOTE AND NOT crossgrad_remote_deps_found)
  message(FATAL_ERROR "crossgrad: CROSSGRAD_WITH_REMOTE=ON but gRPC/protobuf were not found "
                      "(install them with scripts/deps remote)")
elseif(CROSSGRAD_WITH_REMOTE)
  message(STATUS "crossgrad: Remote backend ON (gRPC ${gRPC_VERSION}, protobuf ${Protobuf_VERSION})")
elseif(crossgrad_remote_deps_found)
  message(STATUS "crossgrad: Remote backend OFF (CROSSGRAD_WITH_REMOTE=OFF)")
else()
  message(STATUS "crossgrad: Remote backend OFF (gRPC/protobuf not found; scripts/deps remote)")
endif()

# The wire protocol's generated code (engine/remote_protocol/*.proto -> <name>.pb.{h,cc}, <name>.grpc.pb.{h,cc})
# as an object library; its objects go into the engine archive, so no extra library is installed.
# Only engine/remote_protocol/, engine/src/backends/remote/*.cpp and server/*.cpp include the generated headers (gRPC's
# headers are slow to compile; they stay out of every widely included engine header).
function(crossgrad_remote_proto_library target proto)
  get_filename_component(proto_dir ${proto} DIRECTORY)
  get_filename_component(proto_name ${proto} NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/proto)
  set(srcs ${out}/${proto_name}.pb.cc ${out}/${proto_name}.grpc.pb.cc)
  set(hdrs ${out}/${proto_name}.pb.h ${out}/${proto_name}.grpc.pb.h)
  add_custom_command(OUTPUT ${srcs} ${hdrs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
    COMMAND ${Protobuf_PROTOC_EXECUTABLE} -I ${proto_dir} --cpp_out=${out} --grpc_out=${out}
            --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin> ${proto}
    DEPENDS ${proto} gRPC::grpc_cpp_plugin
    COMMENT "Generating the gRPC/protobuf code of ${proto_name}.proto")
  add_library(${target} OBJECT ${srcs} ${hdrs})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  # SYSTEM: generated code and gRPC's headers are not ours to warn about.
  target_include_directories(${target} SYSTEM PUBLIC $<BUILD_INTERFACE:${out}>)
  target_link_libraries(${target} PUBLIC gRPC::grpc++ protobuf::libprotobuf)
endfunction()
