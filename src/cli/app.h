#pragma once

namespace kjudge {

int run_cli(int argc, char** argv);

}  // namespace kjudge
