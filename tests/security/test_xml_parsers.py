"""Every XML parser that reads an upload leaves entities unexpanded and trees bounded, even past the package checks
(core.file_limits.check_archive refuses a DTD first; these hold when a file gets to a parser anyway)."""

import io

import openpyxl
import pytest
from defusedxml import EntitiesForbidden
from docx.oxml.parser import parse_xml as docx_parse_xml
from lxml import etree

from core.file_limits import parse_xml

from . import hostile_files

pytestmark = pytest.mark.hostile

# Three levels of ten: a thousand "lol"s when expanded, small enough that libxml2's own amplification guard lets
# a resolving parser expand it, so what is tested is our parsers' options, not libxml2's last line of defence.
SMALL_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;'
    b'&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><lolz>&lol2;</lolz>'
)


def test_a_resolving_parser_would_expand_the_small_laughs():
    """The control: the same bytes through lxml's default parser do expand (else the tests below prove nothing)."""
    assert etree.fromstring(SMALL_LAUGHS).text == "lol" * 100


def test_our_own_xml_parts_keep_an_entity_a_reference():
    root = parse_xml(SMALL_LAUGHS)
    assert root.text is None and etree.tostring(root) == b"<lolz>&lol2;</lolz>"


def test_a_billion_laughs_is_refused_by_our_parser_not_expanded():
    with pytest.raises(etree.XMLSyntaxError):
        parse_xml(hostile_files.BILLION_LAUGHS.encode() + b"<lolz>&lol9;</lolz>")


def test_no_huge_tree_a_document_nested_1000_deep_is_refused():
    """libxml2 stops at 256 levels; with huge_tree it would go on to 2,048."""
    with pytest.raises(etree.XMLSyntaxError, match="depth"):
        parse_xml(b"<a>" * 1_000 + b"</a>" * 1_000)


def test_openpyxl_reads_with_defusedxml_and_refuses_a_billion_laughs():
    assert openpyxl.xml.DEFUSEDXML  # defusedxml is installed (requirements.txt) and not switched off
    with pytest.raises(ValueError) as refused:
        openpyxl.load_workbook(io.BytesIO(hostile_files.workbook_with_entities()))
    assert isinstance(refused.value.__cause__, EntitiesForbidden)


def test_python_docx_parses_without_resolving_entities():
    assert etree.tostring(docx_parse_xml(SMALL_LAUGHS)) == b"<lolz>&lol2;</lolz>"
