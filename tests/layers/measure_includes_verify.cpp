// Must NOT compile: verify sits above measure, so measure cannot include it.
#include "verify/case_protocol.hpp"
