"""ferrox.passes"""
