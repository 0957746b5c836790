"""ferrox.dialects.tile"""
