"""The concerns of :class:`larkc.frontends.cuda.lower.FunctionLowering`, one module each (see ``lower.py``)."""
