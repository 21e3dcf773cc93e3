"""The studio side of motions (seed 000): :mod:`.panel` is the Motion tab (keyframe
editor, files, upload), :mod:`.player` plays a program with the stance foot shown."""
