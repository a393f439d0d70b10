// A client process for RemoteFaults.ClientGoneFreesSession: opens a session on the server its
// environment names (CROSSGRAD_REMOTE, CROSSGRAD_REMOTE_TOKEN: the client's default configuration),
// makes three tensors, says so on stdout, and waits to be killed.
#include <crossgrad/crossgrad.hpp>

#include <chrono>
#include <cstdio>
#include <thread>

int main() {
  using namespace crossgrad;
  const DispatchTensor a = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3}, {3}), DispatchDevice::Remote(0));
  const DispatchTensor b = Dispatch::float_add(a, a);
  const DispatchTensor c = Dispatch::float_mul(a, b);
  if (Dispatch::float_into_data(c).to_f32() != std::vector<float>{2, 8, 18}) return 1;
  std::printf("holding 3 tensors\n");
  std::fflush(stdout);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}
