"""srcad's version: the one place it is written (pyproject.toml reads it from here, the
package re-exports it as `srcad.__version__`, generated code and cache keys name it)."""

__version__ = "0.1.0"
