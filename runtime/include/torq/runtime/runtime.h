/* libtorq-runtime: loads Torq modules and runs them on a device (the embedded simulator or a
 * board), with a runtime profile. One include for the whole public API. */
#ifndef TORQ_RUNTIME_RUNTIME_H
#define TORQ_RUNTIME_RUNTIME_H

#include "torq/runtime/device.h"
#include "torq/runtime/input.h"
#include "torq/runtime/module.h"
#include "torq/runtime/npy.h"
#include "torq/runtime/profile.h"
#include "torq/runtime/session.h"
#include "torq/runtime/tensor.h"

#endif
