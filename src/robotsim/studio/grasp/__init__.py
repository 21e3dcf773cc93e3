"""The studio side of ``kind: grasp`` files: the trials played on the studio clock."""
