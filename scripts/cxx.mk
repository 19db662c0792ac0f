# SPDX-License-Identifier: GPL-2.0
# The one Kbuild rule for C++ objects, shared by the module build (../Kbuild)
# and the KUnit overlay. Flags are KBUILD_CFLAGS minus the C-only ones, so
# they follow the kernel being built (x86_64: -mcmodel=kernel, thunks, ...;
# UML: -mcmodel=large, no objtool). objtool runs on every object where the
# kernel runs it ($(cmd_objtool) expands to nothing on UML).
# Include with $(scx-root) set to the project directory as Kbuild sees it.

SCX_CXX ?= $(subst gcc,g++,$(CC))

scx-c-only := -std=gnu% -Wstrict-prototypes -Werror=strict-prototypes \
	-Wold-style-definition -Wold-style-declaration -Wmissing-prototypes \
	-Wdeclaration-after-statement -Wno-pointer-sign -Wpointer-sign \
	-Werror=implicit-function-declaration -Werror-implicit-function-declaration \
	-Wimplicit-function-declaration -Werror=implicit-int -Wimplicit-int \
	-Werror=incompatible-pointer-types -Werror=designated-init \
	-Wnested-externs -Wmissing-parameter-type -Wno-override-init \
	-Wbad-function-cast -Wjump-misses-init -Wno-pointer-to-int-cast \
	-fstrict-flex-arrays=% -Wflex-array-member-not-at-end \
	-Wcast-function-type-strict -fmin-function-alignment=% \
	-Wmissing-variable-declarations -fsanitize=kcfi

# KASAN instruments the C++ objects like the kernel's C (Kbuild adds
# CFLAGS_KASAN per object, outside KBUILD_CFLAGS), except for globals:
# asan-globals registers them from an .init_array constructor, which the
# core must not have (cxx-guard.sh).
scx-san-flags := $(if $(CONFIG_KASAN_GENERIC),$(CFLAGS_KASAN) --param asan-globals=0)

# -fno-asynchronous-unwind-tables is in x86_64's KBUILD_CFLAGS but not UML's;
# C++ objects never carry .eh_frame.
SCX_CXXFLAGS = $(filter-out $(scx-c-only),$(KBUILD_CFLAGS)) \
	$(if $(part-of-module),$(KBUILD_CFLAGS_MODULE)) $(scx-san-flags) \
	-std=gnu++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-fno-use-cxa-atexit -fno-gnu-unique -fcheck-new -nostdinc++ \
	-fno-asynchronous-unwind-tables \
	-DSCX_IN_KERNEL=1 -I$(scx-root)/include -I$(scx-root)/src -Werror

quiet_cmd_scx_cxx_o_cpp = CXX $(quiet_modtag)  $@
      cmd_scx_cxx_o_cpp = $(SCX_CXX) -Wp,-MMD,$(depfile) $(SCX_CXXFLAGS) -c -o $@ $< \
	$(cmd_objtool) ; $(CONFIG_SHELL) $(scx-root)/scripts/cxx-guard.sh $@

$(obj)/%.o: $(src)/%.cpp FORCE
	$(call if_changed_dep,scx_cxx_o_cpp)
