# Spack recipe for mpix. Not part of Spack itself: copy this file into the packages/
# directory of a Spack package repository as mpix/package.py, then `spack install
# mpix` (docs/install.md, "Spack"). Written without Spack at hand: checked to
# be Python, not yet run by Spack.

import os

from spack.package import *

try:  # Spack 1.0 and newer (package API v2): the build systems live in the builtin repo
    from spack_repo.builtin.build_systems.autotools import AutotoolsPackage
except ImportError:  # older Spack exports AutotoolsPackage from spack.package
    pass


class Mpix(AutotoolsPackage):
    """Fast MPI all-to-all exchanges: MPIX_Alltoall, MPIX_Alltoallv and the sparse
    dynamic data exchanges MPIX_Alltoall_crs/MPIX_Alltoallv_crs, with Bruck,
    ParLogNa/ParLinNa, node- and locality-aware algorithms selected by hints or
    environment variables. A C++17 library with a C API, and libmpix_pmpi, which
    routes an unmodified program's MPI_Alltoall(v) through it."""

    homepage = "https://github.com/mpix/mpix"
    git = "https://github.com/mpix/mpix.git"

    license("BSD-3-Clause")

    version("main", branch="main")
    # No release tarball is published yet, so 0.1.0 is the git tag. Once `make dist`'s
    # mpix-0.1.0.tar.gz is, give `url` and the version's sha256 (`spack checksum mpix`)
    # instead, and the autotools below are needed for @main only.
    version("0.1.0", tag="v0.1.0")

    # configure.ac's LT_INIT builds the shared libraries by default (--enable-static adds the static ones).
    variant("shared", default=True, description="Build the shared libraries")
    variant("static", default=False, description="Build the static libraries")
    conflicts("~shared~static", msg="build the shared or the static libraries, or both")

    depends_on("c", type="build")
    depends_on("cxx", type="build")  # C++17
    conflicts("%gcc@:6", msg="mpix needs C++17 (std::optional)")

    # MPI-3: MPI_Comm_split_type, MPI_Ibarrier, MPI_Mprobe (configure checks).
    depends_on("mpi@3:")
    depends_on("hwloc")
    # configure stops without CUnit (PKG_CHECK_MODULES, unconditional), so it is a
    # build dependency although only the make check programs link it; "link" gives
    # those programs its run path.
    depends_on("cunit", type=("build", "link"))
    # configure finds hwloc and CUnit with pkg-config.
    depends_on("pkgconfig", type="build")
    # A git checkout has no configure: autogen.sh runs autoreconf.
    depends_on("autoconf", type="build")
    depends_on("automake@1.15:", type="build")
    depends_on("libtool", type="build")

    def setup_build_environment(self, env):
        # autoreconf (aclocal) needs pkg.m4 and libtool.m4 from the dependencies.
        for dep in ("pkgconfig", "libtool"):
            env.append_path("ACLOCAL_PATH", self.spec[dep].prefix.share.aclocal)

    def autoreconf(self, spec, prefix):
        if not os.path.exists(join_path(self.stage.source_path, "configure")):
            Executable("./autogen.sh")()

    def configure_args(self):
        # The MPI compiler wrappers are the compilers (configure's own default).
        args = [
            "CC={0}".format(self.spec["mpi"].mpicc),
            "CXX={0}".format(self.spec["mpi"].mpicxx),
        ]
        args += self.enable_or_disable("shared")
        args += self.enable_or_disable("static")
        return args

    def check(self):
        # CUnit programs under mpiexec at 1-8 ranks (about 13 minutes on 2 cores).
        make("check")
