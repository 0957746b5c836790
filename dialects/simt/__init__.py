"""ferrox.dialects.simt"""
