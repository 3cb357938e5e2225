// Must NOT compile: core is the bottom layer and cannot see runner's headers (src/CMakeLists.txt).
#include "runner/runner.hpp"
