/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel errno values the device model returns at the C ABI. The core
 * cannot include <errno.h> (no libc headers in a freestanding build), and the
 * numbers are fixed by the Linux ABI, so they are spelled out here.
 */
#pragma once

namespace softcx::hw {

constexpr int kENOMEM = 12;
constexpr int kEINVAL = 22;

} /* namespace softcx::hw */
