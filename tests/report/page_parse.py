"""Read a rendered page back with the standard library's HTML parser, to assert on its elements."""
from html.parser import HTMLParser
from typing import Dict, List, Optional, Tuple

VOID = {"meta", "input", "br", "img", "link", "hr", "rect", "path"}


class Element:
    def __init__(self, tag: str, attrs: Dict[str, Optional[str]]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.text = ""  # the text directly inside
        self.full_text = ""  # all the text inside, nested elements' too (highlighted code is many spans)

    @property
    def classes(self) -> List[str]:
        return (self.attrs.get("class") or "").split()


class PageParser(HTMLParser):
    """Every element with its attributes and the text directly inside it, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: List[Element] = []
        self._open: List[Element] = []
        self.script_text = ""
        self.all_text = ""  # the document's text in order

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        element = Element(tag, dict(attrs))
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        self.elements.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].tag == tag:
                del self._open[i:]
                break

    def handle_data(self, data: str) -> None:
        self.all_text += data
        for element in self._open:
            element.full_text += data
        if self._open:
            self._open[-1].text += data
            if self._open[-1].tag == "script":
                self.script_text += data


def parse(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser


def by_class(page: PageParser, cls: str) -> List[Element]:
    return [e for e in page.elements if cls in e.classes]


def ids(page: PageParser) -> List[str]:
    return [e.attrs["id"] for e in page.elements if e.attrs.get("id")]
