// `dudley view DATA`: a local web viewer of any file, store or URL the tool reads, served on
// 127.0.0.1 until Ctrl-C.
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/model/value.hpp"
#include "view/api.hpp"
#include "view/transport.hpp"

namespace dudley::cli {

namespace {

struct ViewOptions {
  DataOptions data;
  int port = 0;
  std::string bind = "127.0.0.1";
  bool open = false;
  int threads = 16;        // requests waiting for another's read hold theirs: /api/info has others
  double time_limit = 20;  // seconds (view::ViewerApi::kDefaultTimeLimit)
};

// The most members a family's tree holds: each member keeps its file open while the viewer
// runs (the soft limit of open files is raised to the hard one for them).
constexpr size_t kMaxViewedMembers = 4000;

// A family as one tree: a group per member, named by its file's name, holding that member's
// tree (each member opened as `dump --family` opens it). A member that cannot be opened is a
// group holding nothing, its error in the group's `error` attribute, and is named on stderr.
model::Tree family_tree(const DataOptions& options) {
  if (!options.data.empty()) {
    throw Error(ErrorCategory::kUsage, "give DATA or --family, not both");
  }
  const std::vector<DataOptions> members = family_members(options);
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &files);
  }
  if (members.size() > kMaxViewedMembers) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("{} has {} members: the viewer shows at most {}; give a narrower "
                            "pattern",
                            options.family, members.size(), kMaxViewedMembers));
  }
  model::Tree family;
  family.root = std::make_unique<model::Node>();
  family.root->kind = model::NodeKind::kGroup;
  std::set<std::string> names;
  for (const DataOptions& m : members) {
    std::string name = std::filesystem::path(m.data).filename().string();
    for (int k = 2; !names.insert(name).second; ++k) {  // the same name in two directories
      name = fmt::format("{} ({})", std::filesystem::path(m.data).filename().string(), k);
    }
    std::unique_ptr<model::Node> group;
    try {
      model::Tree tree = open_data(m);
      if (family.format.empty()) family.format = tree.format + " family";
      group = std::move(tree.root);
      if (group->kind != model::NodeKind::kGroup) {  // a file that is one array (.npy)
        auto holder = std::make_unique<model::Node>();
        holder->kind = model::NodeKind::kGroup;
        group->name = "data";
        holder->children.push_back(std::move(group));
        group = std::move(holder);
      }
    } catch (const Error& e) {
      const std::string why = shown_message(e.what());
      fmt::print(stderr, "{}\n", why);
      group = std::make_unique<model::Node>();
      group->kind = model::NodeKind::kGroup;
      group->attributes.set("error", model::Value(why));
    }
    group->name = name;
    family.root->children.push_back(std::move(group));
  }
  return family;
}

// Starts the user's browser on `url` (xdg-open, detached: a child that forks it and ends at
// once, so that no process is left for the viewer to reap); a failure is said, not fatal.
void open_browser(const std::string& url) {
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() == 0) {
      execlp("xdg-open", "xdg-open", url.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    _exit(0);
  }
  if (child < 0) {
    fmt::print(stderr, "note: cannot start a browser; open {} yourself\n", url);
    return;
  }
  int status = 0;
  waitpid(child, &status, 0);
}

int run_view(const ViewOptions& o) {
  // Shown in the startup line and the page without what authenticates a URL.
  const std::string shown_name =
      io::redacted_url(o.data.family.empty() ? o.data.data : o.data.family);
  if (o.bind != "127.0.0.1" && o.bind != "localhost" && o.bind != "::1") {
    fmt::print(stderr,
               "warning: serving on {}: anyone who can reach this machine there can read {} "
               "(the viewer has no password)\n",
               o.bind, shown_name);
  }
  const view::Transport& transport = view::transport();  // before reading: a missing module
                                                         // is said at once
  view::ViewerApi api(o.data.family.empty() ? open_data(o.data) : family_tree(o.data), shown_name,
                      std::chrono::milliseconds(static_cast<int64_t>(o.time_limit * 1000)));
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
            fmt::print("{}\n", json_text({{"url", url}, {"port", port}, {"data", shown_name}}));
          } else {
            fmt::print("dudley view: {} at {} (Ctrl-C stops it)\n", shown_name, url);
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
      "Serve a web viewer of DATA (a file, store or URL, or with --family every member of a "
      "family, a group each) on 127.0.0.1: its tree with search, "
      "each item's type, shape, chunks, codecs and attributes, 1-D arrays as line plots, 2-D "
      "slices of any array as heatmaps, a table of values, and the shown slice as CSV, .npy "
      "or PNG. Read-only; Ctrl-C stops it. Example: dudley view run.nc --open");
  add_data_options(*cmd, options->data, /*family=*/true);
  cmd->add_option("--port", options->port, "The port (0: a free one, printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--bind", options->bind,
                  "The address to serve on; anything but 127.0.0.1 lets other machines read "
                  "the data (a warning says so)")
      ->capture_default_str();
  cmd->add_flag("--open", options->open, "Open the viewer in the browser (xdg-open)");
  cmd->add_option("--time-limit", options->time_limit,
                  "Seconds a request may read before it is refused (503, saying how much was "
                  "read): a heatmap of a slow store does not hold the viewer")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->add_option("--threads", options->threads, "Connections served at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->data.json, [&] { return run_view(*options); });
  });
}

}  // namespace dudley::cli
