"""Loads a tool of tools/gpu/ as a module, so its tests call its functions directly."""
import importlib.util
import os

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools", "gpu")


def path(name):
    return os.path.join(TOOLS, f"{name}.py")


def load(name):
    spec = importlib.util.spec_from_file_location(name, path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
