#pragma once
// The exit codes moved to core/exit_codes.h, next to the error type that carries them
// (core/error.h); this header stays for the command files that still include it.
#include "core/exit_codes.h"
