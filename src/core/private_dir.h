#pragma once
// A folder of the judge's own under a shared parent such as /tmp: a fresh name nobody else chose
// (mkdtemp), mode 0700. A name derived from a submission id, a pid or a counter is one another
// process can also derive: two `kjudge serve` instances on one machine each had a submission 1
// and built both tasks in /tmp/kjudge-serve-1 at once, and a user of the machine could plant a
// link there first.
#include <filesystem>
#include <string>

namespace kjudge {

// Creates `parent`/`prefix`XXXXXX; throws Error (exit_code::environment) naming `parent`.
std::filesystem::path make_private_dir(const std::filesystem::path& parent,
                                       const std::string& prefix);

// The same, removed with everything in it when the object goes. `path()` is empty where the
// folder could not be made (`make` throws instead; `try_make` leaves it empty).
class PrivateDir {
 public:
  static PrivateDir make(const std::filesystem::path& parent, const std::string& prefix);
  static PrivateDir try_make(const std::filesystem::path& parent, const std::string& prefix);
  PrivateDir() = default;
  PrivateDir(PrivateDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  PrivateDir& operator=(PrivateDir&& o) noexcept;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir() { remove(); }

  const std::filesystem::path& path() const { return path_; }
  void remove();

 private:
  explicit PrivateDir(std::filesystem::path p) : path_(std::move(p)) {}
  std::filesystem::path path_;
};

}  // namespace kjudge
