#!/usr/bin/env python3
"""Writes the bf16 .npy files of test/tools/cotangent-run-bf16-npy.test as
NumPy and ml_dtypes write them (what np.save of a JAX bf16 array gives):
bf16-x.npy and bf16-2x.npy, its double. Run with the venv of
scripts/jax-venv.sh: build/jax-venv/bin/python test/tools/Inputs/gen-bf16-npy.py
"""
import os

import ml_dtypes
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
x = np.array([1.0, -2.5, 0.15625, 1.5e38, 0.1], dtype=ml_dtypes.bfloat16)
np.save(os.path.join(here, "bf16-x.npy"), x)
np.save(os.path.join(here, "bf16-2x.npy"), x + x)
