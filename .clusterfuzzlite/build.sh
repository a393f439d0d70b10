#!/bin/bash -eu
# ClusterFuzzLite uses the same build as OSS-Fuzz.
exec bash "$SRC/crossgrad/oss-fuzz/build.sh"
