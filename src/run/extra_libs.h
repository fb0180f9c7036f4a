#pragma once
// Headers and libraries that problems' own build commands expect from the system but the
// machine may lack: ComputeEval's cudnn group includes <cudnn_frontend.h> and links -lcudnn
// (its image installs cuDNN 9 and copies cudnn-frontend's include/). scripts/install-libs puts
// them in a folder of kjudge's own (from PyPI's nvidia-cudnn-frontend and nvidia-cudnn-cu13
// wheels) rather than in the system's; every build and test step then gets that folder's
// include/ on CPATH, lib/ on LIBRARY_PATH and LD_LIBRARY_PATH, and in the sandbox the folder
// bound read-only, so the problem's build command runs as its authors wrote it.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

struct ExtraLibs {
  std::filesystem::path root;         // absolute
  std::filesystem::path include_dir;  // empty when absent
  std::filesystem::path lib_dir;      // empty when absent
  // What the folder holds, from its kjudge-libs.txt (one "name version" a line, written by
  // scripts/install-libs); part of the build cache's key, so an install or upgrade rebuilds.
  std::string stamp;
};

// The folder: $KJUDGE_LIBS when set ("none": no folder), else libs/ beside the kjudge binary (a
// bundle's), /opt/kjudge/libs, $HOME/.local/share/kjudge/libs, the first that is a directory.
// nullopt when none is.
std::optional<ExtraLibs> find_extra_libs();

// The variables a step gets for `libs`. With `after_inherited`, a step that inherits the judge's
// environment (no sandbox) keeps what the judge's variables held, after the folder's paths; the
// sandbox's clean environment has only the folder's.
std::vector<std::string> extra_libs_env(const ExtraLibs& libs, bool after_inherited = false);

}  // namespace kjudge
