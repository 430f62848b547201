"""Builds the Python package `edgec` for pip (pyproject.toml).

The native module is built by the project's CMake build (python/CMakeLists.txt)
into BUILD/python/edgec/, BUILD being $EDGEC_BUILD_DIR or ./build: configured
there with Ninja when it has not been, then `cmake --build BUILD --target
_edgec` (a no-op when up to date). The package's files are copied from
there into the wheel. Offline: only Debian's setuptools and wheel
(`pip install --no-build-isolation .`).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.path.abspath(os.environ.get("EDGEC_BUILD_DIR", os.path.join(ROOT, "build")))


class BuildWithCMake(build_py):
    def run(self):
        build_dir = BUILD_DIR
        if not os.path.exists(os.path.join(build_dir, "build.ninja")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build_dir, "-j", os.environ.get("JOBS", "2"), "--target", "_edgec"])
        package = os.path.join(build_dir, "python", "edgec")
        out = os.path.join(self.build_lib, "edgec")
        os.makedirs(out, exist_ok=True)
        for name in sorted(os.listdir(package)):
            if name != "__pycache__":
                shutil.copy2(os.path.join(package, name), os.path.join(out, name))


class BinaryDistribution(Distribution):
    """A wheel for this platform and Python (it holds a native module)."""

    def has_ext_modules(self):
        return True


setup(
    packages=["edgec"],
    package_dir={"edgec": "python/edgec"},
    package_data={"edgec": ["*.pyi", "py.typed", "*.so"]},
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    # setuptools' own files go into the build folder too, not the sources.
    options={"build": {"build_base": os.path.join(BUILD_DIR, "setuptools")},
             "egg_info": {"egg_base": os.makedirs(BUILD_DIR, exist_ok=True) or BUILD_DIR}},
)
