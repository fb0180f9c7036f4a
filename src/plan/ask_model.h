#pragma once
// What every generation run does alike (kjudge generate for each benchmark, kjudge run
// --kernelbench): ask for every missing answer with Ctrl-C stopping the session (what it has
// journalled stays), and the default run directory named after the model.
#include <functional>
#include <string>
#include <vector>

#include "plan/generation_session.h"

namespace kjudge::plan {

// Each journalled answer is handed to `also` (may be empty) as it arrives.
void ask_model(GenerationSession& session, const std::vector<Problem>& problems,
               const std::function<void(const GenRecord&)>& also = nullptr);

// kjudge-gen/<model>, the model's characters other than letters, digits and dots made dashes.
std::string default_generation_dir(const std::string& model);

}  // namespace kjudge::plan
