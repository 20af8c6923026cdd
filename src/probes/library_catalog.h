#pragma once
// The library catalog moved to the report model (src/model/library_catalog.h):
// it names the `libraries` layer's keys, which rules/ and workflow/ read too.
// Kept so the probes that include it by this name need no change.
#include "model/library_catalog.h"
