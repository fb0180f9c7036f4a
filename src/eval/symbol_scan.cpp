#include "eval/symbol_scan.h"

#include <link.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "eval/elf_image.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

bool defined_global(const Elf64_Sym& s) {
  const int bind = ELF64_ST_BIND(s.st_info);
  return s.st_shndx != SHN_UNDEF &&
         (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE);
}

// Loaded libraries of this process whose file name starts with one of `prefixes`.
std::vector<fs::path> loaded_libraries(std::vector<std::string> prefixes) {
  struct Query {
    std::vector<std::string> prefixes;
    std::vector<fs::path> found;
  } q{std::move(prefixes), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* q = static_cast<Query*>(data);
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        const std::string name = fs::path(path).filename().string();
        for (const std::string& prefix : q->prefixes)
          if (!path.empty() && name.rfind(prefix, 0) == 0) {
            q->found.push_back(path);
            break;
          }
        return 0;
      },
      &q);
  return q.found;
}

// What `file` defines (dynamic symbols), or nothing when it cannot be read: a library that is
// not ELF cannot be loaded into a program either, and the run fails there, not here. Kept per
// file, size and time: a service judges a task submission at a time and reads the same 9 MB of
// libraries (libc, libstdc++, the CUDA runtime, CUPTI) for every one.
void add_exports(const fs::path& file, std::set<std::string>& out) {
  static std::mutex mu;
  static std::map<std::string, std::pair<std::string, std::set<std::string>>> cache;
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  const auto time = fs::last_write_time(file, ec).time_since_epoch().count();
  const std::string stamp = std::to_string(size) + "@" + std::to_string(time);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(file.string()); it != cache.end() && it->second.first == stamp) {
      out.insert(it->second.second.begin(), it->second.second.end());
      return;
    }
  }
  std::set<std::string> names;
  try {
    const ElfImage img(file);
    for (const auto& s : img.symbols(SHT_DYNSYM))
      if (defined_global(s.sym) && !s.name.empty()) names.insert(s.name);
  } catch (const std::exception&) {
  }
  out.insert(names.begin(), names.end());
  std::lock_guard<std::mutex> lock(mu);
  cache[file.string()] = {stamp, std::move(names)};
}

}  // namespace

std::set<std::string> judge_relied_names(const std::vector<fs::path>& imports_of,
                                         const std::vector<fs::path>& libraries) {
  std::set<std::string> out;
  for (const fs::path& lib : loaded_libraries(
           {"libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux", "ld64.so"}))
    add_exports(lib, out);
  std::set<std::string> defined;
  for (const fs::path& lib : loaded_libraries({"libstdc++.so", "libgcc_s.so"}))
    add_exports(lib, defined);
  for (const fs::path& lib : libraries) add_exports(lib, defined);
  for (const fs::path& f : imports_of) {
    std::error_code ec;
    if (f.empty() || !fs::is_regular_file(f, ec)) continue;
    std::optional<ElfImage> read;
    try {
      read.emplace(f);
    } catch (const std::exception&) {
      continue;
    }
    // A shared library's imports are in .dynsym; an object file has only .symtab.
    for (std::uint32_t type : {SHT_DYNSYM, SHT_SYMTAB})
      for (const auto& s : read->symbols(type))
        if (s.sym.st_shndx == SHN_UNDEF && ELF64_ST_BIND(s.sym.st_info) != STB_LOCAL &&
            defined.count(s.name))
          out.insert(s.name);
  }
  return out;
}

std::vector<fs::path> cuda_libraries(const fs::path& nvcc) {
  std::vector<fs::path> out;
  if (nvcc.empty()) return out;
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(nvcc, ec).parent_path().parent_path();
  for (const char* name : {"libcudart.so", "libcupti.so", "libcuda.so"}) {
    for (const fs::path& dir :
         {root / "lib64", root / "targets/x86_64-linux/lib", root / "extras/CUPTI/lib64",
          root / "lib64/stubs", root / "targets/x86_64-linux/lib/stubs",
          fs::path("/usr/lib/x86_64-linux-gnu")}) {
      if (fs::exists(dir / name, ec)) {
        out.push_back(dir / name);
        break;
      }
    }
  }
  return out;
}

std::vector<std::string> interposed_names(const fs::path& file, const std::set<std::string>& relied,
                                          bool linked_in) {
  const ElfImage img(file);
  const auto symbols = img.symbols(linked_in ? SHT_SYMTAB : SHT_DYNSYM);
  // The addresses the loader fills by copying a library's variable: every name at one of them
  // (environ beside the __environ its relocation names) is the library's object.
  std::set<std::uint64_t> copied;
  if (!linked_in) {
    const std::vector<std::uint64_t> indexes = img.copy_relocated();
    for (const auto& s : symbols)
      if (std::find(indexes.begin(), indexes.end(), s.index) != indexes.end())
        copied.insert(s.sym.st_value);
  }
  std::set<std::string> found;
  for (const auto& s : symbols) {
    if (!defined_global(s.sym) || !relied.count(s.name)) continue;
    if (ELF64_ST_TYPE(s.sym.st_info) == STT_OBJECT && copied.count(s.sym.st_value)) continue;
    found.insert(s.name);
  }
  std::vector<std::string> reasons;
  for (const std::string& name : found) {
    if (reasons.size() == 5) {
      reasons.push_back("and " + std::to_string(found.size() - 5) + " more");
      break;
    }
    reasons.push_back("defines '" + name + "'");
  }
  return reasons;
}

}  // namespace kjudge
