// Must compile: the control for the two probes that must not (the same build, a downward include).
#include "measure/criterion.hpp"
#include "verify/case_protocol.hpp"
