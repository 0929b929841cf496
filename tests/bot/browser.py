"""A real browser for the web table's tests: Debian's chromium and chromium-driver (what `.ci/run` installs),
driven by Selenium. The bot runs on the test's event loop, so every browser call runs in a thread: the page
is served while the test waits for it."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
MISSING = (
    None if CHROMIUM and DRIVER else "no chromium and chromium-driver (apt-get install them; .ci/run does)"
)

LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#1b1b1f",
    "button_color": "#2f7de1",
    "secondary_bg_color": "#eef1f4",
}
DARK = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}


def page_url(base: str, init: str, table: int | None = None, theme: dict[str, str] | None = None) -> str:
    """The page as Telegram opens it: the launch parameters in the address's fragment."""
    fragment = "tgWebAppData=" + quote(init, safe="")
    fragment += "&tgWebAppThemeParams=" + quote(json.dumps(theme or LIGHT), safe="")
    return f"{base}/?table={table or ''}#{fragment}"


class Browser:
    def __init__(self, width: int = 360, height: int = 740, scale: float = 1.0) -> None:
        assert CHROMIUM and DRIVER, MISSING
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--host-resolver-rules=MAP telegram.org 127.0.0.1:9",  # no internet: Telegram's script fails fast
        ):
            options.add_argument(argument)
        # A phone's screen: headless Chromium's windows are no narrower than 500 px, its emulated devices are.
        metrics = {"width": width, "height": height, "pixelRatio": scale}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
        self.driver = webdriver.Chrome(options=options, service=Service(DRIVER))

    @classmethod
    async def start(cls, width: int = 360, height: int = 740, scale: float = 1.0) -> Browser:
        return await asyncio.to_thread(cls, width, height, scale)

    async def open(self, url: str) -> None:
        await asyncio.to_thread(self.driver.get, url)

    async def run(self, script: str, *args: Any) -> Any:
        return await asyncio.to_thread(self.driver.execute_script, script, *args)

    async def all(self, css: str) -> list[WebElement]:
        return await asyncio.to_thread(self.driver.find_elements, By.CSS_SELECTOR, css)

    async def text(self, css: str) -> str:
        found: str = await self.run(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css
        )
        return found

    async def codes(self) -> set[str]:
        """Every card the page's DOM holds, wherever it is drawn."""
        found: list[str] = await self.run(
            "return [...document.querySelectorAll('[data-code]')].map(e => e.dataset.code)"
        )
        return set(found)

    async def click(self, element: WebElement) -> bool:
        """Tap ``element``; False if the page was drawn anew since it was found (a new state came)."""
        try:
            await asyncio.to_thread(element.click)
        except StaleElementReferenceException:
            return False
        return True

    async def screenshot(self, path: Path) -> None:
        await asyncio.to_thread(self.driver.save_screenshot, str(path))

    async def quit(self) -> None:
        await asyncio.to_thread(self.driver.quit)
