#pragma once
// Note [Backend bytes name registry indices]
// A backend byte selects from every backend the engine knows (crossgrad::kKnownBackends, in
// registry order: NdArray, Flex, Cuda, Remote, LibTorch), never from those available here: byte % 5
// is the registry index on every machine and in every build (Note [Registry indices do not depend on
// the build]). It was byte % 3 before Remote was appended and byte % 4 before LibTorch was, so a
// fuzzer-found file with a byte >= 4 written before LibTorch now names another backend; the writer,
// and so every seed, writes the index itself. When LibTorch was appended every file under corpus/
// (3,952) was decoded before and after (fuzz/scripts/corpus-meaning OLD NEW): 62 decoded to
// another scenario; 60 of them were re-encoded, each backend byte b replaced by b % 4 (what the old
// writer writes), and now decode as before. Two grad_replace_fuzzer files (6ba0f414..., 75d6b021...)
// still decoded to other scenarios after that byte-by-byte mending; they were replaced by
// their canonical encodings written by the old build (`fuzz_repro --canonical DIR`: encode(decode)),
// 67225dac... and 9cddcad..., which describe the same scenarios under both decoders.
// The writer writes the registry index itself, so a written file keeps its meaning when a backend
// is appended (see Note [One schema, two directions]). A backend with indexed devices (Cuda) is
// followed by a device byte, device = byte % kDeviceChoices, so scenarios can name a second GPU.
// Remote's devices are numbered too (configured servers) but scenarios use its first server only,
// Remote(0): no device byte, so adding Remote changed no scenario of the other backends.
// Whether the named backend and device exist here is not the decoder's business: the reader notes
// each use (ByteReader::note_use) and the target skips a scenario that cannot run here ("not
// applicable here"), never remapping it to another backend.
#include <crossgrad/backends/registry.hpp>
#include <cstddef>

namespace crossgrad::fuzz {

inline constexpr std::size_t kDeviceChoices = 2;

inline bool has_indexed_devices(std::size_t registry_index) {
  return registry_index < kKnownBackendCount && kKnownBackends[registry_index].device_kind == Device::Kind::Cuda;
}

// A backend on its default device.
template <class Io>
void backend(Io &io, std::size_t &registry_index) {
  io.pick(registry_index, kKnownBackendCount);
  if constexpr (Io::reading) io.note_use(registry_index, 0);
}

// A backend and, when its devices are indexed, which device.
template <class Io>
void backend_and_device(Io &io, std::size_t &registry_index, int &device) {
  io.pick(registry_index, kKnownBackendCount);
  if (has_indexed_devices(registry_index)) {
    std::size_t d = device < 0 ? 0 : static_cast<std::size_t>(device);
    io.pick(d, kDeviceChoices);
    device = static_cast<int>(d);
  } else {
    device = 0;
  }
  if constexpr (Io::reading) io.note_use(registry_index, device);
}

}  // namespace crossgrad::fuzz
