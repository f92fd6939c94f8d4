#include "numerics/files.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"

namespace privamp {

namespace {

constexpr std::string_view kTemporary = ".privamp-tmp-";  // in the names of temporary files (and render folders)

std::string strerror_text() { return std::strerror(errno); }

// The folder a target lives in ("." for a bare name).
std::filesystem::path folder_of(const std::filesystem::path& path) {
  const auto parent = path.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

void sync_folder(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself is atomic
  ::fsync(fd);
  ::close(fd);
}

// Permissions say little for the superuser or on special file systems (/proc, a read-only mount): a probe file of our
// own (a unique name, created exclusively, removed at once; no file of the user's is touched) is the test.
// Empty if a file can be created in `dir`, else why not.
std::string probe_writable(const std::filesystem::path& dir) {
  std::string probe = (dir / ".privamp-probe-XXXXXX").string();
  const int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0) return strerror_text();
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

// An output path is held to the identifiers' text policy (escape::text_problem): its name reaches the terminal, the
// reports and the command line they quote, where a newline, an escape sequence or a bidirectional override would
// change what a reader sees (a folder "r\nx.html" was written, and the HTML report's command line broke in two).
void check_path_text(std::string_view option, const std::filesystem::path& path) {
  if (const std::string why = escape::text_problem(path.native()); !why.empty())
    invalid_input("{}{}{}: the path holds {}; output paths may not hold control characters, bidirectional controls or invalid "
                  "UTF-8 (rename it)", option, option.empty() ? "" : " ", escape::visible(path.native()), why);
}

}  // namespace

void check_target(std::string_view option, const std::filesystem::path& path) {
  const std::string named = option.empty() ? path.string() : fmt::format("{} {}", option, path.string());
  // (a NUL ends the path for the system: "out\0/etc" from Python made the folder "out")
  if (path.native().find('\0') != std::string::npos) invalid_input("{}: a path cannot hold a NUL character", escape::plain(named));
  check_path_text(option, path);
  // The file is written as ".NAME.privamp-tmp-XXXXXX" and renamed: that name must fit the file system's limit too
  // (a name of 250 characters ran the whole computation and then could not be written).
  const std::size_t name = path.filename().string().size(), limit = NAME_MAX - 1 - kTemporary.size() - 6;
  if (name > limit) invalid_input("{}: a file name of {} bytes; allowed at most {} (the file system's {} less the temporary name's)", named, name, limit, NAME_MAX);
  if (const std::size_t whole = path.native().size(); whole + 2 + kTemporary.size() + 6 >= PATH_MAX)
    invalid_input("{}...: a path of {} bytes; allowed at most {} (the system's {} less the temporary name's)", named.substr(0, 60), whole,
                  PATH_MAX - 3 - kTemporary.size() - 6, PATH_MAX);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;  // absent: it will be created
    invalid_input("{}: cannot write there ({})", named, std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode))
    invalid_input("{}: is a symbolic link; privamp never writes through a link (remove it, or choose "
                  "another output folder)", named);
  if (!S_ISREG(st.st_mode))
    invalid_input("{}: is not a regular file (a folder, device or pipe); privamp writes only regular files", named);
}

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)) { check_target("", path_); }

OutputFile::~OutputFile() = default;

void OutputFile::close() {
  if (closed_) return;
  closed_ = true;
  write_file(path_, out_.view());
}

void check_json_nesting(std::string_view what, std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNesting)
        invalid_input("{}: brackets nested more than {} deep (at character {}); the file holds rows of numbers", what, kMaxJsonNesting, k + 1);
    } else if (c == ']' || c == '}') --depth;
  }
}

std::string read_input_file(std::string_view what, const std::filesystem::path& path, std::size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) invalid_input("{} {}: cannot be read: {}", what, path.string(), strerror_text());
  if (!S_ISREG(st.st_mode))
    invalid_input("{} {}: not a regular file (a folder, device or pipe is not read)", what, path.string());
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    invalid_input("{} {}: {} bytes; at most {}", what, path.string(), st.st_size, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) invalid_input("{} {}: cannot be read", what, path.string());
  // Read in chunks to the end, into a buffer sized by the file (not by the limit: a 256 MB limit would otherwise
  // allocate and clear 256 MB per small file); a file that grew past the limit since stat() is refused.
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size) + 1);
  std::array<char, 1 << 16> chunk;
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) invalid_input("{} {}: more than {} bytes", what, path.string(), max_bytes);
  }
  return text;
}

void write_file(const std::filesystem::path& path, std::string_view text) {
  check_target("", path);
  const auto dir = folder_of(path);
  std::string temporary = (dir / fmt::format(".{}{}XXXXXX", path.filename().string(), kTemporary)).string();
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);  // a new file of our own: O_EXCL, no link followed
  if (fd < 0) invalid_input("cannot write {}: {}", path.string(), strerror_text());
  auto fail = [&](const std::string& why) {
    ::close(fd);
    ::unlink(temporary.c_str());
    invalid_input("cannot write {}: {}", path.string(), why);
  };
  // mkostemp creates 0600; an output file gets the permissions the umask allows, as any new file would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) fail(strerror_text());
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(strerror_text());
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail(strerror_text());
  if (::close(fd) != 0) {
    ::unlink(temporary.c_str());
    invalid_input("cannot write {}: {}", path.string(), strerror_text());
  }
  move_into_place(temporary, path);
}

void move_into_place(const std::filesystem::path& from, const std::filesystem::path& target) {
  try {
    check_target("", target);  // a link planted since the last check is refused too
  } catch (...) {
    ::unlink(from.c_str());
    throw;
  }
  // rename() replaces the directory entry itself: were a link planted after the check, the link is replaced, never
  // followed.
  if (::rename(from.c_str(), target.c_str()) != 0) {
    const std::string why = strerror_text();
    ::unlink(from.c_str());
    invalid_input("cannot write {}: {}", target.string(), why);
  }
  sync_folder(folder_of(target));
}

void check_output_dir(std::string_view option, const std::filesystem::path& dir) {
  // Room for what privamp writes inside: a figure's or a search's files in a private staging folder, itself in
  // another (explore's maps), each name up to 255 bytes, about 500 in all past the folder. A longer folder path
  // ran the whole computation and then could not write (the system's limit is PATH_MAX, 4096).
  if (const std::size_t n = dir.native().size(); n > kMaxOutputDirPath)
    invalid_input("{} {}...: a path of {} bytes; allowed at most {} (the system's {} less room for the files privamp writes "
                  "inside)", option, dir.native().substr(0, 40), n, kMaxOutputDirPath, PATH_MAX);
  if (dir.native().find('\0') != std::string::npos) invalid_input("{}: a path cannot hold a NUL character", option);
  check_path_text(option, dir);
  std::error_code ec;
  if (std::filesystem::is_symlink(dir, ec) && !std::filesystem::exists(dir, ec))
    invalid_input("{} {}: is a symbolic link to nothing (to {}): remove it, or choose another folder", option, dir.string(),
                  std::filesystem::read_symlink(dir, ec).string());
  if (std::filesystem::exists(dir, ec)) {
    if (!std::filesystem::is_directory(dir, ec))
      invalid_input("{} {}: is a file, not a directory", option, dir.string());
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      invalid_input("{} {}: cannot write there", option, dir.string());
    if (const std::string why = probe_writable(dir); !why.empty())
      invalid_input("{} {}: cannot write there ({})", option, dir.string(), why);
    return;
  }
  // The nearest existing ancestor must be a directory we may create folders in.
  std::filesystem::path up = std::filesystem::absolute(dir, ec).parent_path();
  while (!up.empty() && !std::filesystem::exists(up, ec) && up != up.root_path()) up = up.parent_path();
  if (!std::filesystem::is_directory(up, ec))
    invalid_input("{} {}: cannot be created ({} is not a directory)", option, dir.string(), up.string());
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    invalid_input("{} {}: cannot be created (no permission to write in {})", option, dir.string(), up.string());
  if (const std::string why = probe_writable(up); !why.empty())  // (/proc grants the superuser W_OK; nothing can be made there)
    invalid_input("{} {}: cannot be created (nothing can be written in {}: {})", option, dir.string(), up.string(), why);
}

void check_output_file(std::string_view option, const std::filesystem::path& file, const std::vector<std::filesystem::path>& made) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec) || !file.has_filename())  // (a path ending in '/' names a folder)
    invalid_input("{} {}: a directory (give a file name)", option, file.string());
  check_target(option, file);
  // A folder's output lock: written over by rename, it would no longer be the file another run holds, and a third
  // run would take the folder while that one still writes into it.
  if (file.filename() == lock_file({}).filename())
    invalid_input("{} {}: the name is privamp's output lock (the file a run into that folder holds); choose another "
                  "name", option, file.string());
  // A name like privamp's temporary files: the next run into that folder would remove it as a killed run's leftover.
  if (file.filename().string().find(kTemporary) != std::string::npos)
    invalid_input("{} {}: the name holds '{}', which privamp's temporary files carry (a later run would remove it as a "
                  "leftover); choose another name", option, file.string(), kTemporary);
  // A single file's folder is not created for it (a misspelt folder is said now, not after the run), unless the run
  // creates it as one of its output folders.
  const auto folder = std::filesystem::absolute(file, ec).parent_path();
  const bool made_by_run = std::any_of(made.begin(), made.end(), [&](const std::filesystem::path& m) {
    return !m.empty() && resolved_path(m) == resolved_path(folder);
  });
  if (made_by_run) return;
  if (!std::filesystem::is_directory(folder, ec))
    invalid_input("{} {}: the folder {} does not exist", option, file.string(), folder.string());
  check_output_dir(option, folder);
}

OutputLock make_output_dir(std::string_view option, const std::filesystem::path& dir) {
  check_output_dir(option, dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) invalid_input("{} {}: cannot be created: {}", option, dir.string(), ec.message());
  if (const std::string why = probe_writable(dir); !why.empty())
    invalid_input("{} {}: cannot write there ({})", option, dir.string(), why);
  return OutputLock(option, dir);
}

std::vector<OutputLock> lock_output_folders(const std::vector<OutputFolder>& folders) {
  std::vector<const OutputFolder*> distinct;
  for (const OutputFolder& f : folders) {
    const std::filesystem::path resolved = resolved_path(f.dir);
    if (std::none_of(distinct.begin(), distinct.end(), [&](const OutputFolder* d) { return resolved_path(d->dir) == resolved; }))
      distinct.push_back(&f);
  }
  for (const OutputFolder* f : distinct) check_output_dir(f->option, f->dir);
  for (const OutputFolder& f : folders)
    for (const std::string& file : f.files) check_target(f.option, f.dir / file);
  std::vector<OutputLock> locks;
  std::error_code ec;
  for (const bool existing : {true, false})
    for (const OutputFolder* f : distinct)
      if (std::filesystem::is_directory(f->dir, ec) == existing) locks.push_back(make_output_dir(f->option, f->dir));
  return locks;
}

OutputLock::OutputLock(std::string_view option, const std::filesystem::path& dir) {
  const auto file = lock_file(dir);
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ELOOP)
    invalid_input("{} {}: {} is a symbolic link; privamp writes its pid there and never through a link (remove it, or "
                  "choose another output folder)", option, dir.string(), file.string());
  if (fd_ < 0)
    invalid_input("{} {}: cannot lock the folder ({}: {})", option, dir.string(), file.string(), strerror_text());
  // The lock file is written in place (the pid): it must be a regular file of its own, not a hard link to a file
  // elsewhere (O_NOFOLLOW refuses symbolic links only), a pipe or a device.
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    const bool linked = S_ISREG(st.st_mode) && st.st_nlink > 1;
    ::close(fd_);
    fd_ = -1;
    invalid_input("{} {}: {} is {}; privamp writes its pid there and will not (remove it, or choose "
                  "another output folder)", option, dir.string(), file.string(),
                  linked ? fmt::format("a hard link shared with {} other name(s)", st.st_nlink - 1)
                         : "not a regular file");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char text[32] = {};
    const ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
    std::string holder(text, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    invalid_input("{} {}: another privamp run{} is writing into this folder; wait for it to end or "
                  "choose another folder",
                  option, dir.string(), holder.empty() ? "" : fmt::format(" (pid {})", holder));
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
  // Temporary files and render folders that a killed run left behind: no live run owns them while we hold the lock.
  // Only what privamp makes is removed: a regular file or a folder (not a link, pipe or device) named as mkstemp and
  // mkdtemp name ours, ".NAME.privamp-tmp-" and six letters or digits (a user's ".notes.privamp-tmp-draft" stays).
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::size_t at = name.rfind(kTemporary);
    if (name.size() < 2 || name[0] != '.' || at == std::string::npos) continue;
    const std::string suffix = name.substr(at + kTemporary.size());
    if (suffix.size() != 6 || !std::all_of(suffix.begin(), suffix.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
      continue;
    const auto status = entry.symlink_status(ec);
    if (std::filesystem::is_regular_file(status)) std::filesystem::remove(entry.path(), ec);
    else if (std::filesystem::is_directory(status)) std::filesystem::remove_all(entry.path(), ec);
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // the lock goes with the descriptor; the lock file stays (removing it would race)
}

OutputLock& OutputLock::operator=(OutputLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

std::filesystem::path make_temporary_folder(const std::filesystem::path& dir, std::string_view name) {
  std::string folder = (dir / fmt::format(".{}{}XXXXXX", name, kTemporary)).string();
  if (::mkdtemp(folder.data()) == nullptr)
    invalid_input("cannot create a temporary folder in {}: {}", dir.string(), strerror_text());
  return folder;
}

StagedFiles::StagedFiles(const std::filesystem::path& dir, std::string_view name, const std::vector<std::string>& files)
    : dir_(dir), files_(files) {
  for (const auto& file : files_) check_target("", dir_ / file);
  folder_ = make_temporary_folder(dir_, name);
}

StagedFiles::~StagedFiles() {
  std::error_code ec;
  std::filesystem::remove_all(folder_, ec);
}

void StagedFiles::commit(const std::vector<std::string>& drop_if_empty) {
  std::vector<std::string> files = files_;
  if (files.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(folder_))
      if (entry.is_regular_file() && !entry.is_symlink()) files.push_back(entry.path().filename().string());
    std::sort(files.begin(), files.end());
  }
  // An entry of drop_if_empty names a file, or with a leading '*' every file ending so ("*.log").
  auto dropped = [&](const std::string& file) {
    for (const std::string& d : drop_if_empty)
      if (d == file || (d.starts_with('*') && file.ends_with(std::string_view(d).substr(1)))) return true;
    return false;
  };
  std::vector<std::string> publish, remove;
  for (const auto& file : files) {
    std::error_code quiet;
    const auto from = folder_ / file;
    if (!std::filesystem::exists(from, quiet)) continue;
    if (dropped(file) && std::filesystem::file_size(from, quiet) == 0 && !quiet) remove.push_back(file);
    else publish.push_back(file);
  }
  // Every target is checked before any is renamed: a link planted at one of them refuses the whole set.
  for (const auto& file : publish) check_target("", dir_ / file);
  for (const auto& file : remove) {
    std::error_code quiet;
    std::filesystem::remove(dir_ / file, quiet);  // an earlier run's file of that name (never followed: remove unlinks)
  }
  for (const auto& file : publish) move_into_place(folder_ / file, dir_ / file);
}

std::filesystem::path lock_file(const std::filesystem::path& dir) { return dir / ".privamp.lock"; }

std::filesystem::path resolved_path(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path r = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  if (ec) r = std::filesystem::absolute(path, ec).lexically_normal();
  if (!r.has_filename() && r.has_parent_path()) r = r.parent_path();
  return r;
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::filesystem::path>>& outputs,
                            const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> resolved;
  for (const auto& output : outputs) resolved.push_back(resolved_path(output.second));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (resolved[i] == resolved[j])
        invalid_input("{} '{}' is a file that {} writes ('{}'): give outputs that do not overlap", outputs[i].first,
                      outputs[i].second.string(), outputs[j].first, outputs[j].second.string());
    for (const auto& input : inputs)
      if (resolved[i] == resolved_path(input))
        invalid_input("{} '{}' is an input of this run ('{}'): give an output that does not overwrite it", outputs[i].first,
                      outputs[i].second.string(), input.string());
  }
}

}  // namespace privamp
