"""ferrox.lowering"""
