"""ferrox.driver"""
