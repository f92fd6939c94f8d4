// The one writer of output files: whole or nothing, never through a link; one run per output folder.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "numerics/errors.hpp"
#include "numerics/files.hpp"
#include "support/scratch.hpp"

using namespace privamp;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string error_of_read(const std::filesystem::path& p, std::size_t limit) {
  try {
    read_input_file("input", p, limit);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

std::size_t entries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("write_file replaces a file whole and leaves no temporary file", "[files]") {
  const auto dir = test::scratch() / "atomic";
  std::filesystem::create_directories(dir);
  write_file(dir / "a.csv", "old\n");
  write_file(dir / "a.csv", "new text\n");
  CHECK(read(dir / "a.csv") == "new text\n");
  CHECK(entries(dir) == 1);
  struct stat st {};
  REQUIRE(::stat((dir / "a.csv").c_str(), &st) == 0);
  CHECK((st.st_mode & 0444) == 0444);  // not left at mkstemp's 0600
}

TEST_CASE("an OutputFile that is not closed leaves the old file as it was", "[files]") {
  const auto dir = test::scratch() / "unclosed";
  std::filesystem::create_directories(dir);
  write_file(dir / "r.json", "[1, 2]\n");
  {
    OutputFile out(dir / "r.json");
    out << "[3";  // an exception between here and close() (a failed computation, a caught signal)
  }
  CHECK(read(dir / "r.json") == "[1, 2]\n");
  CHECK(entries(dir) == 1);
}

TEST_CASE("a symbolic link where an output goes is refused, and the file it points to is untouched", "[files]") {
  const auto dir = test::scratch() / "links";
  std::filesystem::create_directories(dir / "out");
  write_file(dir / "outside.txt", "precious\n");
  std::filesystem::create_symlink(dir / "outside.txt", dir / "out" / "results.csv");
  std::filesystem::create_symlink(dir / "nowhere.txt", dir / "out" / "report.md");  // dangling: would create a file
  CHECK_THROWS_WITH(write_file(dir / "out" / "results.csv", "x"), Catch::Contains("symbolic link") && Catch::Contains("results.csv"));
  CHECK_THROWS_AS(write_file(dir / "out" / "report.md", "x"), InvalidArgument);
  CHECK_THROWS_AS(OutputFile(dir / "out" / "results.csv"), InvalidArgument);
  CHECK_THROWS_WITH(check_target("--out", dir / "out" / "report.md"), Catch::Contains("--out"));
  CHECK(read(dir / "outside.txt") == "precious\n");
  CHECK_FALSE(std::filesystem::exists(dir / "nowhere.txt"));
  std::filesystem::create_directories(dir / "out" / "a_folder");
  CHECK_THROWS_WITH(write_file(dir / "out" / "a_folder", "x"), Catch::Contains("not a regular file"));
}

TEST_CASE("move_into_place refuses a link and removes what it would have moved", "[files]") {
  const auto dir = test::scratch() / "move";
  std::filesystem::create_directories(dir);
  write_file(dir / "outside.pdf", "keep");
  write_file(dir / "made.pdf", "new");
  std::filesystem::create_symlink(dir / "outside.pdf", dir / "fig.pdf");
  CHECK_THROWS_AS(move_into_place(dir / "made.pdf", dir / "fig.pdf"), InvalidArgument);
  CHECK(read(dir / "outside.pdf") == "keep");
  CHECK_FALSE(std::filesystem::exists(dir / "made.pdf"));
}

TEST_CASE("one run per output folder: a second lock is refused naming the holder", "[files]") {
  const auto dir = test::scratch() / "locked";
  const OutputLock first = make_output_dir("--out", dir);
  CHECK_THROWS_WITH(OutputLock("--out", dir), Catch::Contains("another privamp run (pid " + std::to_string(::getpid()) + ")") &&
                                                   Catch::Contains("--out"));
  // Temporary files of a killed run are removed by the next run that takes the lock, and nothing else is.
  const auto other = test::scratch() / "stale";
  std::filesystem::create_directories(other);
  write_file(other / ".results.csv.privamp-tmp-abc123", "half");
  write_file(other / "results.csv", "whole");
  std::filesystem::create_directories(other / ".fig.privamp-tmp-Q1w2E3");  // a killed render's folder
  write_file(other / ".fig.privamp-tmp-Q1w2E3" / "fig.pdf", "half");
  // Not privamp's: a user's folder that only looks like one (its whole content was removed once), and a link.
  std::filesystem::create_directories(other / ".thesis.privamp-tmp-notes");
  write_file(other / ".thesis.privamp-tmp-notes" / "ch1.tex", "precious");
  write_file(other / "target.txt", "kept");
  std::filesystem::create_symlink("target.txt", other / ".x.privamp-tmp-abc123");
  { const OutputLock lock("--out", other); }
  CHECK_FALSE(std::filesystem::exists(other / ".results.csv.privamp-tmp-abc123"));
  CHECK_FALSE(std::filesystem::exists(other / ".fig.privamp-tmp-Q1w2E3"));
  CHECK(read(other / ".thesis.privamp-tmp-notes" / "ch1.tex") == "precious");
  CHECK(std::filesystem::is_symlink(other / ".x.privamp-tmp-abc123"));
  CHECK(read(other / "target.txt") == "kept");
  CHECK(read(other / "results.csv") == "whole");
  // Released with its holder: the folder can be locked again.
  { const OutputLock again("--out", other); }
}

TEST_CASE("read_input_file reads a file whole within its limit and refuses one over it, a folder or a pipe", "[files]") {
  const auto dir = test::scratch() / "read_input";
  std::filesystem::create_directories(dir);
  std::string big(200000, 'x');  // more than one chunk of the reader
  for (std::size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  write_file(dir / "big.txt", big);
  CHECK(read_input_file("input", dir / "big.txt", big.size()) == big);
  CHECK_THAT(error_of_read(dir / "big.txt", big.size() - 1), Catch::Contains("200000 bytes; at most 199999"));
  write_file(dir / "empty.txt", "");
  CHECK(read_input_file("input", dir / "empty.txt", 10).empty());
  CHECK_THAT(error_of_read(dir, 10), Catch::Contains("not a regular file"));
  const auto fifo = dir / "pipe";
  std::filesystem::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(error_of_read(fifo, 10), Catch::Contains("not a regular file"));
}

TEST_CASE("a hard link, a pipe or a folder planted at the lock file is refused and the file it names is untouched", "[files]") {
  // The lock file is written in place (the pid): a hard link to a file outside the folder once received it.
  const auto base = test::scratch() / "planted_lock";
  std::filesystem::create_directories(base / "out");
  write_file(base / "victim.txt", "precious\n");
  REQUIRE(::link((base / "victim.txt").c_str(), (base / "out" / ".privamp.lock").c_str()) == 0);
  CHECK_THROWS_WITH(make_output_dir("--out", base / "out"), Catch::Contains("hard link") && Catch::Contains("--out"));
  CHECK(read(base / "victim.txt") == "precious\n");
  // A FIFO (opening it for writing would block or feed a reader) and a folder.
  std::filesystem::create_directories(base / "fifo");
  REQUIRE(::mkfifo((base / "fifo" / ".privamp.lock").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(OutputLock("--out", base / "fifo"), Catch::Contains("not a regular file") || Catch::Contains("cannot lock"));
  std::filesystem::create_directories(base / "folder" / ".privamp.lock");
  CHECK_THROWS_WITH(OutputLock("--out", base / "folder"), Catch::Contains("cannot lock") || Catch::Contains("not a regular file"));
  // A symbolic link is refused by O_NOFOLLOW.
  std::filesystem::create_directories(base / "sym");
  std::filesystem::create_symlink(base / "victim.txt", base / "sym" / ".privamp.lock");
  CHECK_THROWS_WITH(OutputLock("--out", base / "sym"), Catch::Contains("is a symbolic link; privamp writes its pid there and never through a link"));
  CHECK(read(base / "victim.txt") == "precious\n");
}

TEST_CASE("output paths that cannot be written are refused before any work", "[files]") {
  // --junit into a folder that does not exist, or into /proc (permissions allow the superuser; the probe does not).
  CHECK_THROWS_WITH(check_output_file("--junit", test::scratch() / "no_such_folder" / "junit.xml"),
                    Catch::Contains("does not exist") && Catch::Contains("--junit"));
  if (std::filesystem::is_directory("/proc")) {
    CHECK_THROWS_WITH(check_output_file("--junit", "/proc/junit.xml"), Catch::Contains("cannot write there"));
    CHECK_THROWS_WITH(check_output_dir("--out", "/proc"), Catch::Contains("cannot write there"));
  }
  std::filesystem::create_directories(test::scratch() / "probed");
  CHECK_NOTHROW(check_output_file("--junit", test::scratch() / "probed" / "junit.xml"));
  CHECK(entries(test::scratch() / "probed") == 0);  // the probe leaves nothing behind
}

TEST_CASE("an output folder to be created under a place nothing can be created in is refused at once", "[files]") {
  if (std::filesystem::is_directory("/proc"))
    CHECK_THROWS_WITH(check_output_dir("out", "/proc/x"), Catch::Contains("out /proc/x: cannot be created") && Catch::Contains("/proc"));
  CHECK_NOTHROW(check_output_dir("out", test::scratch() / "new" / "deeper"));
}

TEST_CASE("staged files are published together, or not at all when writing fails before the commit", "[files]") {
  const auto dir = test::scratch() / "staged";
  std::filesystem::create_directories(dir);
  write_file(dir / "fig.csv", "earlier\n");
  write_file(dir / "fig.log", "an earlier run's complaint\n");
  {
    StagedFiles staged(dir, "fig", {"fig.csv", "fig.pdf", "fig.log"});
    write_file(staged.path("fig.csv"), "new\n");
    // ... and the PDF's helper fails: nothing is published, the earlier set stands and the folder is gone.
  }
  CHECK(read(dir / "fig.csv") == "earlier\n");
  CHECK(!std::filesystem::exists(dir / "fig.pdf"));
  CHECK(entries(dir) == 2);
  {
    StagedFiles staged(dir, "fig", {"fig.csv", "fig.pdf", "fig.log"});
    write_file(staged.path("fig.csv"), "new\n");
    write_file(staged.path("fig.pdf"), "%PDF\n");
    write_file(staged.path("fig.log"), "");
    staged.commit({"fig.log"});  // an empty log is not published, and the earlier one is removed
  }
  CHECK(read(dir / "fig.csv") == "new\n");
  CHECK(read(dir / "fig.pdf") == "%PDF\n");
  CHECK(!std::filesystem::exists(dir / "fig.log"));
  CHECK(entries(dir) == 2);
  {
    StagedFiles staged(dir, "search");  // no list: whatever was written is published
    write_file(staged.path("b.md"), "b\n");
    write_file(staged.path("a.json"), "{}\n");
    staged.commit();
  }
  CHECK(read(dir / "a.json") == "{}\n");
  CHECK(read(dir / "b.md") == "b\n");
  CHECK(entries(dir) == 4);
  // A link planted where a staged file goes is refused before anything is written.
  std::filesystem::create_symlink(dir / "a.json", dir / "fig.png");
  CHECK_THROWS_AS(StagedFiles(dir, "fig", {"fig.png"}), InvalidArgument);
  CHECK(entries(dir) == 5);
  {
    // Without a list the targets are checked at commit, all of them before any rename: nothing is published.
    StagedFiles staged(dir, "search");
    write_file(staged.path("a.json"), "{\"new\": 1}\n");
    write_file(staged.path("fig.png"), "png\n");
    CHECK_THROWS_AS(staged.commit(), InvalidArgument);
  }
  CHECK(read(dir / "a.json") == "{}\n");
  CHECK(std::filesystem::is_symlink(dir / "fig.png"));
  std::filesystem::remove(dir / "fig.png");
  // "*.log" drops every empty log and removes an earlier one; a log that says something is published.
  write_file(dir / "x_map.log", "an earlier complaint\n");
  {
    StagedFiles staged(dir, "search");
    write_file(staged.path("x_map.log"), "");
    write_file(staged.path("x_convergence.log"), "gnuplot said this\n");
    staged.commit({"*.log"});
  }
  CHECK(!std::filesystem::exists(dir / "x_map.log"));
  CHECK(read(dir / "x_convergence.log") == "gnuplot said this\n");
}
