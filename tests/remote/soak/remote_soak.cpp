// remote_soak: a bounded load test of the Remote backend (issue 15, item 6). It starts a
// crossgrad-server subprocess (Flex, loopback, ephemeral port, random token), then N client
// processes that each run a mix of ops through Dispatch on Remote(0) and on local Flex with the
// same inputs and compare the results bit for bit (forward values, and gradients of a small
// Autodiff graph). A warm-up round with the same N clients comes first, so the server's thread
// arenas and caches exist before its RSS is read; after the measured round the server's RSS must
// stay within --rss-tolerance (default 10 %) of that reading: sessions freed, nothing retained.
// Stops by itself: each client runs --ops operations or --seconds, whichever comes first. Odd
// clients move tensors on the bulk channel, even ones in gRPC messages.
//
//   remote_soak --server build/default/server/crossgrad-server --clients 4 --ops 400 --seconds 5
//
// Exit 0 when every client finished without a mismatch or an unexpected panic, the RSS bound held
// and the server exited 0 on SIGTERM; one summary line either way.
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/backends/remote_config.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace crossgrad;

namespace {

struct Options {
  std::string server;
  int clients = 4;
  long ops = 400;
  double seconds = 5;
  long warmup_ops = 60;
  double rss_tolerance = 0.10;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "remote_soak: %s\nusage: remote_soak --server PATH [--clients N] [--ops N] [--seconds S] "
               "[--warmup-ops N] [--rss-tolerance F]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--server") o.server = value();
    else if (a == "--clients") o.clients = std::stoi(value());
    else if (a == "--ops") o.ops = std::stol(value());
    else if (a == "--seconds") o.seconds = std::stod(value());
    else if (a == "--warmup-ops") o.warmup_ops = std::stol(value());
    else if (a == "--rss-tolerance") o.rss_tolerance = std::stod(value());
    else usage(("unknown argument " + a).c_str());
  }
  if (o.server.empty()) usage("--server is required");
  if (o.clients < 1 || o.ops < 1 || o.seconds <= 0) usage("--clients, --ops and --seconds must be positive");
  return o;
}

std::string random_token() {
  std::random_device rd;
  std::string t;
  for (int i = 0; i < 32; ++i) t += "0123456789abcdef"[rd() % 16];
  return t;
}

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// ---- one client process ---------------------------------------------------------------------

struct Mismatch {
  std::string what;
};

TensorData values(std::mt19937& rng, std::size_t rows, std::size_t cols) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(rows * cols);
  for (float& x : v) x = dist(rng);
  return TensorData::from_f32(std::move(v), Shape{rows, cols});
}

void same(const DispatchTensor& remote, const DispatchTensor& flex, const char* what) {
  if (Dispatch::float_into_data(remote) != Dispatch::float_into_data(flex)) throw Mismatch{what};
}

// One step of the mix: new operands on both backends, one op, results compared. Operands are kept
// in a small pool and dropped at random, so handles are freed (batched) all the time.
struct Pool {
  std::vector<std::pair<DispatchTensor, DispatchTensor>> pairs;  // (Remote, Flex), same data
};

void step(std::mt19937& rng, Pool& pool) {
  const DispatchDevice remote = DispatchDevice::Remote(0), flex = DispatchDevice::Flex();
  std::uniform_int_distribution<std::size_t> dim(1, 48);
  const std::size_t r = dim(rng), c = dim(rng), k = dim(rng);
  const TensorData a = values(rng, r, c), b = values(rng, r, c), m = values(rng, c, k);
  const DispatchTensor ra = Dispatch::float_from_data(a, remote), fa = Dispatch::float_from_data(a, flex);
  switch (rng() % 7) {
    case 0: {
      const DispatchTensor rb = Dispatch::float_from_data(b, remote), fb = Dispatch::float_from_data(b, flex);
      same(Dispatch::float_add(ra, rb), Dispatch::float_add(fa, fb), "float_add");
      break;
    }
    case 1: {
      const DispatchTensor rm = Dispatch::float_from_data(m, remote), fm = Dispatch::float_from_data(m, flex);
      same(Dispatch::float_matmul(ra, rm), Dispatch::float_matmul(fa, fm), "float_matmul");
      break;
    }
    case 2:
      same(Dispatch::float_exp(Dispatch::float_mul(ra, ra)), Dispatch::float_exp(Dispatch::float_mul(fa, fa)),
           "float_exp(float_mul)");
      break;
    case 3: {
      const std::size_t d = rng() % 2;
      same(Dispatch::float_sum_dim(ra, d), Dispatch::float_sum_dim(fa, d), "float_sum_dim");
      break;
    }
    case 4:
      same(Dispatch::softmax(ra, 1), Dispatch::softmax(fa, 1), "softmax");
      break;
    case 5: {
      // A small graph on Autodiff(Remote) and Autodiff(Flex): the gradients must agree too.
      const DispatchTensor rx = Dispatch::float_from_data(a, DispatchDevice::Autodiff(remote));
      const DispatchTensor fx = Dispatch::float_from_data(a, DispatchDevice::Autodiff(flex));
      const Gradients rg = Dispatch::backward(Dispatch::float_sum(Dispatch::float_tanh(Dispatch::float_mul(rx, rx))));
      const Gradients fg = Dispatch::backward(Dispatch::float_sum(Dispatch::float_tanh(Dispatch::float_mul(fx, fx))));
      same(*Dispatch::grad(rx, rg), *Dispatch::grad(fx, fg), "grad of sum(tanh(x*x))");
      break;
    }
    default:
      pool.pairs.emplace_back(ra, fa);
      break;
  }
  // Pool operands are reused as the left side of an add, then dropped at random.
  if (!pool.pairs.empty()) {
    auto& [pr, pf] = pool.pairs[rng() % pool.pairs.size()];
    if (Dispatch::float_into_data(pr).shape() == a.shape()) {
      same(Dispatch::float_add(pr, ra), Dispatch::float_add(pf, fa), "float_add (pooled operand)");
    }
  }
  if (pool.pairs.size() > 16 || (!pool.pairs.empty() && rng() % 3 == 0)) {
    pool.pairs.erase(pool.pairs.begin() + static_cast<std::ptrdiff_t>(rng() % pool.pairs.size()));
  }
}

// Exit codes: 0 done, 1 mismatch, 2 a panic or another error.
int client_main(int index, const std::string& address, const std::string& token, long ops, double seconds) {
  remote::configure({remote::Endpoint{address, token}});
  // Odd clients send every tensor of 256 bytes or more on the bulk channel (Note [Remote bulk
  // channel]), even ones inside gRPC messages: both paths under load at once, one RSS bound.
  remote::set_bulk_threshold(index % 2 == 1 ? 256 : remote::kBulkOff);
  std::mt19937 rng(1000u + static_cast<unsigned>(index));
  Pool pool;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long done = 0;
  try {
    while (done < ops && std::chrono::steady_clock::now() < deadline) {
      step(rng, pool);
      ++done;
    }
  } catch (const Mismatch& m) {
    std::fprintf(stderr, "remote_soak: client %d: Remote and Flex differ on %s after %ld ops\n", index,
                 m.what.c_str(), done);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "remote_soak: client %d: %s after %ld ops\n", index, e.what(), done);
    return 2;
  }
  std::printf("%ld\n", done);  // the parent reads the op count from the pipe
  std::fflush(stdout);
  return 0;
}

struct Round {
  long ops = 0;
  int failed = 0;
  double seconds = 0;
};

// Runs `clients` client processes to completion; ops are summed from their reports.
Round run_round(const Options& o, const std::string& address, const std::string& token, long ops, double seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  struct Child {
    pid_t pid;
    int out;
  };
  std::vector<Child> children;
  for (int i = 0; i < o.clients; ++i) {
    int fds[2];
    if (pipe(fds) != 0) usage("pipe failed");
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], STDOUT_FILENO);
      _exit(client_main(i, address, token, ops, seconds));
    }
    close(fds[1]);
    children.push_back({pid, fds[0]});
  }
  Round round;
  for (const Child& c : children) {
    std::string text;
    char buf[64];
    ssize_t n;
    while ((n = read(c.out, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    close(c.out);
    int status = 0;
    waitpid(c.pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      round.ops += std::atol(text.c_str());
    } else {
      ++round.failed;
    }
  }
  round.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return round;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  char dir_template[] = "/tmp/remote-soak-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string port_file = dir + "/endpoint";
  const std::string token = random_token();

  const pid_t server = fork();
  if (server == 0) {
    setenv("CROSSGRAD_REMOTE_TOKEN", token.c_str(), 1);
    execl(o.server.c_str(), o.server.c_str(), "--backend", "Flex", "--port", "0", "--port-file", port_file.c_str(),
          static_cast<char*>(nullptr));
    std::perror("remote_soak: exec crossgrad-server");
    _exit(127);
  }
  std::string address;
  for (int i = 0; i < 200 && address.empty(); ++i) {
    std::ifstream in(port_file);
    std::getline(in, address);
    if (address.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (address.empty()) {
    kill(server, SIGKILL);
    std::printf("remote_soak: FAILED: the server wrote no endpoint to %s within 10 s\n", port_file.c_str());
    return 1;
  }

  const Round warm = run_round(o, address, token, o.warmup_ops, o.seconds);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // sessions of exited clients end
  const long rss_warm = rss_kib(server);
  const Round run = run_round(o, address, token, o.ops, o.seconds);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long rss_after = rss_kib(server);

  kill(server, SIGTERM);
  int status = 0;
  waitpid(server, &status, 0);
  const bool server_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::remove(port_file.c_str());
  rmdir(dir.c_str());

  const double growth = rss_warm > 0 ? double(rss_after - rss_warm) / double(rss_warm) : 1.0;
  const bool rss_ok = rss_warm > 0 && rss_after > 0 && growth <= o.rss_tolerance;
  const bool ok = warm.failed == 0 && run.failed == 0 && rss_ok && server_ok;
  std::printf(
      "remote_soak: %s: %d clients, %ld ops in %.1f s (%.0f ops/s), %d failed clients (warm-up: %ld ops, %d failed); "
      "server RSS %ld KiB after warm-up, %ld KiB after the run (%+.1f %%, bound %+.0f %%); server exit %s\n",
      ok ? "PASSED" : "FAILED", o.clients, run.ops, run.seconds, run.seconds > 0 ? double(run.ops) / run.seconds : 0.0,
      run.failed, warm.ops, warm.failed, rss_warm, rss_after, growth * 100, o.rss_tolerance * 100,
      server_ok ? "0" : "non-zero");
  return ok ? 0 : 1;
}
