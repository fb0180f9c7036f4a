#include "cli/app.h"

int main(int argc, char** argv) { return kjudge::run_cli(argc, argv); }
