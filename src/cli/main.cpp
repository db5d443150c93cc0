// The `dudley` command-line tool.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/suggest.hpp"
#include "dudley/io/redact.hpp"

namespace {

// The commands, in the order --help lists them.
struct Command {
  const char* name;
  void (*add)(CLI::App& app, int& exit_code);
};
constexpr Command kCommands[] = {
    {"check", dudley::cli::add_check_command},
    {"fmt", dudley::cli::add_fmt_command},
    {"ls", dudley::cli::add_ls_command},
    {"dump", dudley::cli::add_dump_command},
    {"convert", dudley::cli::add_convert_command},
    {"layout", dudley::cli::add_layout_command},
    {"plot", dudley::cli::add_plot_command},
    {"view", dudley::cli::add_view_command},
#ifdef DUDLEY_WITH_NDL
    {"describe", dudley::cli::add_describe_command},
#endif
#ifdef DUDLEY_WITH_AVRO
    {"avro", dudley::cli::add_avro_command},
#endif
};

int run(int argc, char** argv) {
  CLI::App app{
      "dudley: self-describing n-dimensional array data.\n"
      "Check and format Dudley layouts (.dud files); list and dump the data they describe."};
  app.set_version_flag("--version", std::string("dudley ") + DUDLEY_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'dudley COMMAND --help' for the options of a command.");
  int exit_code = dudley::cli::kExitOk;
  // Only the command being run is built: every command's options cost start time (CLI11
  // makes an object per option; building all of them was a fifth of `dudley --version`).
  // --help and words naming no command get all of them; --version alone, none.
  const bool named = argc > 1 && argv[1][0] != '-';
  const bool version = argc == 2 && std::strcmp(argv[1], "--version") == 0;
  bool known = false;
  std::vector<std::string> names;
  for (const Command& c : kCommands) {
    names.emplace_back(c.name);
    if ((!named && !version) || (named && std::strcmp(argv[1], c.name) == 0)) {
      c.add(app, exit_code);
      known = known || named;
    }
  }
  // A word where the command goes that names none: say so, with the nearest command, rather
  // than CLI11's "A subcommand is required".
  if (named && !known) {
    fmt::print(stderr, "error: unknown command '{}'{}; the commands are {}\n", argv[1],
               dudley::did_you_mean(argv[1], names), fmt::join(names, ", "));
    return dudley::cli::kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that succeed; CLI11 prints them.
    if (e.get_exit_code() == 0) return app.exit(e);
    const std::vector<std::string> arguments(argv + 1, argv + argc);
    std::vector<std::string> options;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (argc < 2 || sub->get_name() != argv[1]) continue;
      for (const CLI::Option* o : sub->get_options()) {
        for (const std::string& name : o->get_lnames()) options.push_back("--" + name);
      }
    }
    std::string message = e.what();
    if (auto hint = message.find("\nRun with --help"); hint != std::string::npos) {
      message.resize(hint);
    }
    return dudley::cli::report_usage_error(message, arguments, options);
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f), a write fails with EFBIG and is reported naming the
  // file, instead of the signal killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  // A command's requests to web servers end within an hour unless told otherwise
  // (--http-deadline, DUDLEY_HTTP_DEADLINE): a server that answers, but too slowly to
  // finish, must not hold a script forever. The library has no such default: an open file
  // in a Python session lives longer than any command.
  ::setenv("DUDLEY_HTTP_DEADLINE", "3600", /*overwrite=*/0);
  try {
    const int status = run(argc, argv);
    // Output that could not be written (a full disk, a closed pipe) is a failure, whatever
    // the command thought: exit 0 with output lost is the worst outcome.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      fmt::print(stderr, "dudley: error: cannot write the output (standard output): {}\n",
                 std::strerror(errno != 0 ? errno : EIO));
      return dudley::cli::kExitError;
    }
    return status;
  } catch (const std::system_error& e) {
    // fmt::print refused by stdout (the error is the system's, not a bug here).
    fmt::print(stderr, "dudley: error: cannot write the output (standard output): {}\n",
               e.code().message());
    return dudley::cli::kExitError;
  } catch (const dudley::Error& e) {
    fmt::print(stderr, "{}\n", dudley::cli::shown_message(e.what()));
    // An input that was read but is wrong (a layout with a syntax error, a damaged file) is
    // exit 1; a command that could not run (no such file, bad arguments) is exit 2.
    return dudley::cli::exit_status_for(e);
  } catch (const std::bad_alloc&) {
    // Every size taken from a file is checked before it is allocated; this is the last line.
    std::fputs("dudley: error: out of memory\n", stderr);
  } catch (const std::exception& e) {
    fmt::print(stderr, "dudley: internal error: {}\n", e.what());
  } catch (...) {
    std::fputs("dudley: internal error\n", stderr);
  }
  return dudley::cli::kExitError;
}
