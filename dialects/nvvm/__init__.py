"""ferrox.dialects.nvvm"""
