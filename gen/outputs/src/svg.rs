//! A small typed SVG writer: rectangles, lines and text on an integer grid, printed in the order
//! they were added. Every piece of text goes through one escaping function, so names and
//! descriptions from a map can never break the XML.

use std::fmt::Write;

/// Text alignment relative to its `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// One drawing element.
#[derive(Clone, Debug)]
pub enum Element {
    Rect {
        x: i32,
        y: i32,
        width: i32,
        height: i32,
        fill: &'static str,
        stroke: &'static str,
        /// Shown as a tooltip by viewers.
        title: Option<String>,
    },
    Line {
        x1: i32,
        y1: i32,
        x2: i32,
        y2: i32,
        stroke: &'static str,
    },
    Text {
        x: i32,
        y: i32,
        size: u32,
        anchor: Anchor,
        bold: bool,
        fill: &'static str,
        text: String,
    },
}

/// A picture of `width` × `height` pixels.
#[derive(Clone, Debug)]
pub struct Svg {
    width: i32,
    height: i32,
    /// Short description for screen readers (`<title>` of the picture).
    title: String,
    elements: Vec<Element>,
}

/// Escapes `&`, `<`, `>`, `"` and `'` for text and attribute values, and drops characters XML
/// 1.0 forbids.
pub fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
}

impl Svg {
    pub fn new(width: i32, height: i32, title: impl Into<String>) -> Svg {
        Svg {
            width,
            height,
            title: title.into(),
            elements: Vec::new(),
        }
    }

    pub fn push(&mut self, element: Element) {
        self.elements.push(element);
    }

    pub fn rect(&mut self, x: i32, y: i32, width: i32, height: i32, fill: &'static str) {
        self.push(Element::Rect {
            x,
            y,
            width,
            height,
            fill,
            stroke: "#000000",
            title: None,
        });
    }

    pub fn line(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, stroke: &'static str) {
        self.push(Element::Line {
            x1,
            y1,
            x2,
            y2,
            stroke,
        });
    }

    pub fn text(&mut self, x: i32, y: i32, size: u32, anchor: Anchor, text: impl Into<String>) {
        self.push(Element::Text {
            x,
            y,
            size,
            anchor,
            bold: false,
            fill: "#000000",
            text: text.into(),
        });
    }

    /// The document, with a trailing newline.
    pub fn render(&self) -> String {
        let mut o = String::with_capacity(256 + 120 * self.elements.len());
        let _ = writeln!(
            o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" role=\"img\">",
            w = self.width,
            h = self.height
        );
        o.push_str("<title>");
        escape(&self.title, &mut o);
        o.push_str("</title>\n");
        let _ = writeln!(
            o,
            "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
            self.width, self.height
        );
        for e in &self.elements {
            match e {
                Element::Rect {
                    x,
                    y,
                    width,
                    height,
                    fill,
                    stroke,
                    title,
                } => {
                    let _ = write!(
                        o,
                        "<rect x=\"{x}\" y=\"{y}\" width=\"{width}\" height=\"{height}\" \
                         fill=\"{fill}\" stroke=\"{stroke}\""
                    );
                    match title {
                        Some(t) => {
                            o.push_str("><title>");
                            escape(t, &mut o);
                            o.push_str("</title></rect>\n");
                        }
                        None => o.push_str("/>\n"),
                    }
                }
                Element::Line {
                    x1,
                    y1,
                    x2,
                    y2,
                    stroke,
                } => {
                    let _ = writeln!(
                        o,
                        "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{stroke}\"/>"
                    );
                }
                Element::Text {
                    x,
                    y,
                    size,
                    anchor,
                    bold,
                    fill,
                    text,
                } => {
                    let _ = write!(
                        o,
                        "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" text-anchor=\"{}\" \
                         fill=\"{fill}\"{}>",
                        anchor.as_str(),
                        if *bold { " font-weight=\"bold\"" } else { "" }
                    );
                    escape(text, &mut o);
                    o.push_str("</text>\n");
                }
            }
        }
        o.push_str("</svg>\n");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        let mut s = Svg::new(10, 10, "a<b");
        s.text(0, 0, 10, Anchor::Start, "x & \"y\" <z>\u{1}");
        let out = s.render();
        assert!(out.contains("<title>a&lt;b</title>"));
        assert!(out.contains(">x &amp; &quot;y&quot; &lt;z&gt;</text>"));
    }
}
