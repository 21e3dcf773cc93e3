"""Helpers shared by the browser tests and their fixtures."""

from __future__ import annotations


def close_notifications(page) -> None:
    """Close the toasts (viser warns that WebGL runs in software)."""
    page.wait_for_timeout(500)
    for button in page.locator(".mantine-Notification-root button").all():
        if button.is_visible():
            button.click()
    page.wait_for_timeout(300)
