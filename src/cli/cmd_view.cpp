// `dudley view DATA`: a local web viewer of any file, store or URL the tool reads, served on
// 127.0.0.1 until Ctrl-C.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "view/api.hpp"
#include "view/transport.hpp"

namespace dudley::cli {

namespace {

struct ViewOptions {
  DataOptions data;
  int port = 0;
  std::string bind = "127.0.0.1";
  bool open = false;
  int threads = 4;
};

// Starts the user's browser on `url` (xdg-open, detached); a failure is said, not fatal.
void open_browser(const std::string& url) {
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    execlp("xdg-open", "xdg-open", url.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (child < 0) fmt::print(stderr, "note: cannot start a browser; open {} yourself\n", url);
}

int run_view(const ViewOptions& o) {
  if (o.bind != "127.0.0.1" && o.bind != "localhost" && o.bind != "::1") {
    fmt::print(stderr,
               "warning: serving on {}: anyone who can reach this machine there can read {} "
               "(the viewer has no password)\n",
               o.bind, o.data.data);
  }
  const view::Transport& transport = view::transport();  // before reading: a missing module
                                                         // is said at once
  view::ViewerApi api(open_data(o.data), o.data.data);
  // SIGINT and SIGTERM end the server from a thread that waits for them: the server's own
  // threads never see them, and the answer being sent is finished first.
  sigset_t stopping;
  sigemptyset(&stopping);
  sigaddset(&stopping, SIGINT);
  sigaddset(&stopping, SIGTERM);
  sigaddset(&stopping, SIGUSR1);  // sent by this program: the server ended on its own
  pthread_sigmask(SIG_BLOCK, &stopping, nullptr);
  std::function<void()> stop = [] {};
  std::atomic<bool> served{false};
  std::mutex stop_mutex;
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stopping, &signal);
    if (signal == SIGUSR1) return;
    // Until the server has stopped (a stop before it listens would be lost).
    while (!served) {
      {
        const std::lock_guard lock(stop_mutex);
        stop();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  auto end_waiter = [&] {
    served = true;
    pthread_kill(waiter.native_handle(), SIGUSR1);
    waiter.join();
  };
  view::ServeOptions serve;
  serve.host = o.bind;
  serve.port = o.port;
  serve.threads = o.threads;
  try {
    std::function<void()> server_stop;
    transport.serve(
        serve, [&api](const view::HttpRequest& r) { return api.handle(r); },
        [&](int port) {
          {
            const std::lock_guard lock(stop_mutex);
            stop = server_stop;
          }
          api.set_listening(o.bind, port);
          const std::string host =
              o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind;
          const std::string url = fmt::format("http://{}:{}/", host, port);
          if (o.data.json) {
            fmt::print("{}\n",
                       nlohmann::json{{"url", url}, {"port", port}, {"data", o.data.data}}.dump());
          } else {
            fmt::print("dudley view: {} at {} (Ctrl-C stops it)\n", o.data.data, url);
          }
          std::fflush(stdout);
          if (o.open) open_browser(url);
        },
        server_stop);
  } catch (...) {
    end_waiter();
    throw;
  }
  end_waiter();
  if (!o.data.json) fmt::print("dudley view: stopped\n");
  return kExitOk;
}

}  // namespace

void add_view_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ViewOptions>();
  CLI::App* cmd = app.add_subcommand(
      "view",
      "Serve a web viewer of DATA (a file, store or URL) on 127.0.0.1: its tree with search, "
      "each item's type, shape, chunks, codecs and attributes, 1-D arrays as line plots, 2-D "
      "slices of any array as heatmaps, a table of values, and the shown slice as CSV, .npy "
      "or PNG. Read-only; Ctrl-C stops it. Example: dudley view run.nc --open");
  add_data_options(*cmd, options->data, /*family=*/false);
  cmd->add_option("--port", options->port, "The port (0: a free one, printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--bind", options->bind,
                  "The address to serve on; anything but 127.0.0.1 lets other machines read "
                  "the data (a warning says so)")
      ->capture_default_str();
  cmd->add_flag("--open", options->open, "Open the viewer in the browser (xdg-open)");
  cmd->add_option("--threads", options->threads, "Connections served at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->data.json, [&] { return run_view(*options); });
  });
}

}  // namespace dudley::cli
