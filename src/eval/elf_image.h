#pragma once
// A built program or object read as ELF64, with bounds-checked access: a truncated or hostile
// file gives an error naming it, never a read past the buffer. The judge reads what it built
// from a solution before it runs it (eval/start_code_scan.h, eval/symbol_scan.h).
#include <elf.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge {

class ElfImage {
 public:
  // Throws std::runtime_error naming the file when it cannot be read as 64-bit little-endian ELF.
  explicit ElfImage(const std::filesystem::path& path);

  template <class T>
  T at(std::uint64_t offset) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) fail("is cut short");
    T v;
    std::memcpy(&v, bytes_.data() + offset, sizeof(T));
    return v;
  }
  std::string c_string(std::uint64_t offset) const;
  [[noreturn]] void fail(const std::string& why) const;

  const Elf64_Ehdr& header() const { return header_; }
  const std::vector<Elf64_Shdr>& sections() const { return sections_; }

  struct Symbol {
    std::string name;  // without a version suffix ("write", not "write@GLIBC_2.2.5")
    Elf64_Sym sym;
    std::uint64_t index;  // in its table
  };
  // Every entry of the symbol tables of `type` (SHT_SYMTAB or SHT_DYNSYM), index 0 left out.
  std::vector<Symbol> symbols(std::uint32_t type) const;
  // Indexes into .dynsym of the symbols the loader fills by copying another object's data
  // (R_X86_64_COPY, R_AARCH64_COPY): the other object's variables, not definitions of this one.
  std::vector<std::uint64_t> copy_relocated() const;

 private:
  std::string path_;
  std::string bytes_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Shdr> sections_;
};

}  // namespace kjudge
