// SPDX-License-Identifier: Apache-2.0
// The SWIM engine in one include: a member with Lifeguard (vigil::swim::Node), its configuration
// and profiles, the membership it keeps, the outbox its host drains, and the base types they use
// (Millis, Result, Rng). Link vigil::swim (CMake) or vigil-swim (pkg-config); docs/library.md
// shows a host loop.
#pragma once

#include <vigil/base/result.hpp>
#include <vigil/base/rng.hpp>
#include <vigil/base/time.hpp>
#include <vigil/swim/address.hpp>
#include <vigil/swim/awareness.hpp>
#include <vigil/swim/broadcast_queue.hpp>
#include <vigil/swim/config.hpp>
#include <vigil/swim/counters.hpp>
#include <vigil/swim/member.hpp>
#include <vigil/swim/member_index.hpp>
#include <vigil/swim/node.hpp>
#include <vigil/swim/outbox.hpp>
#include <vigil/swim/suspicion.hpp>
