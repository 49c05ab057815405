"""Settings, paths and bank id resolution."""
