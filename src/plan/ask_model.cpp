// Asking for every answer under Ctrl-C. Declared, and explained, in plan/ask_model.h.
#include "plan/ask_model.h"

#include "plan/interrupts.h"

namespace kjudge::plan {

void ask_model(GenerationSession& session, const std::vector<Problem>& problems,
               const std::function<void(const GenRecord&)>& also) {
  const RunInterrupts in = run_interrupts();
  in.session->store(&session);
  {
    InterruptScope scope;
    session.run(problems, also);
  }
  in.session->store(nullptr);
}

std::string default_generation_dir(const std::string& model) {
  return "kjudge-gen/" + model_pack_name(model);
}

}  // namespace kjudge::plan
