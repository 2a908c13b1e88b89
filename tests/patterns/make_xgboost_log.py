"""Writes a real XGBoost training log (the library's own per-round output)."""
import sys
import numpy as np
import xgboost as xgb

rng = np.random.default_rng(7)
x = rng.normal(size=(4000, 8))
y = x @ rng.normal(size=8) + 0.3 * np.sin(3 * x[:, 0]) + rng.normal(scale=0.2, size=4000)
dtrain = xgb.DMatrix(x[:3000], label=y[:3000])
dtest = xgb.DMatrix(x[3000:], label=y[3000:])
depth = int(sys.argv[1]) if len(sys.argv) > 1 else 4
xgb.train({"max_depth": depth, "eta": 0.1, "objective": "reg:squarederror", "seed": 7},
          dtrain, num_boost_round=40, evals=[(dtrain, "train"), (dtest, "eval")],
          verbose_eval=True)
