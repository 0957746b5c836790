"""ferrox.dialects.host"""
