"""ferrox.dialects"""
