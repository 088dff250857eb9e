"""`pip install .`: the package `atoll` (python/atoll) with its extension
atoll._atoll built by the project's CMake build (target atoll_python).

CMake configures a build directory of its own, build-pip (ATOLL_BUILD_DIR
names another, e.g. an existing build), for the Python that runs pip, and
builds only the libraries and the extension. Metadata is in pyproject.toml.
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("ATOLL_BUILD_DIR") or ROOT / "build-pip").resolve()
        env = dict(os.environ)
        # ccache (when present) reuses the objects of a build of the same
        # checkout, as scripts/test.sh sets it up.
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        env.setdefault("CCACHE_NOHASHDIR", "1")
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                               f"-DPython3_EXECUTABLE={sys.executable}"], env=env)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "atoll_python", "-j", jobs], env=env)
        built = list((build_dir / "python" / "atoll").glob("_atoll.*"))
        if len(built) != 1:
            raise RuntimeError(f"the CMake build made no single atoll/_atoll extension in {build_dir}: {built}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    ext_modules=[Extension("atoll._atoll", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build directory, away from CMake's build/.
    options={"build": {"build_base": "build-pip/setuptools"}},
)
