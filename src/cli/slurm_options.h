#pragma once
// The command-line side of --executor slurm: its options added to kjudge validate|evaluate|run
// (cmd_run.cpp). CLI11 writes them straight into the plain slurm::SlurmArgs the engine in
// src/slurm takes (slurm/options.h), so no conversion is needed after parsing.
#include <CLI/CLI.hpp>

#include "slurm/options.h"

namespace kjudge {

void add_slurm_options(CLI::App* c, slurm::SlurmArgs& a);

}  // namespace kjudge
