// Declared, and explained, in kernelbench/judge/solo_gate.h.
#include "kernelbench/judge/solo_gate.h"

namespace kjudge::kernelbench {

SoloGate::Hold::Hold(SoloGate& gate, bool solo) : gate_(gate), solo_(solo) {
  std::unique_lock<std::mutex> lock(gate_.mu_);
  if (solo_) {
    ++gate_.solo_waiting_;
    gate_.cv_.wait(lock, [&] { return gate_.running_ == 0 && !gate_.solo_; });
    --gate_.solo_waiting_;
    gate_.solo_ = true;
  } else {
    // Behind every solo run already waiting: ordinary runs would otherwise keep one waiting for
    // ever, each starting before the last has ended.
    gate_.cv_.wait(lock, [&] { return gate_.solo_waiting_ == 0 && !gate_.solo_; });
    ++gate_.running_;
  }
}

SoloGate::Hold::~Hold() {
  {
    std::lock_guard<std::mutex> lock(gate_.mu_);
    if (solo_)
      gate_.solo_ = false;
    else
      --gate_.running_;
  }
  gate_.cv_.notify_all();
}

int SoloGate::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_ + (solo_ ? 1 : 0);
}

}  // namespace kjudge::kernelbench
