//! A small typed SVG writer: rectangles, lines and text on an integer grid, printed in the order
//! they were added. Every piece of text goes through one escaping function, so names and
//! descriptions from a map can never break the XML.

use rdmagen_regmap::text::push_decimal;
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
    /// Elements sharing text style: the style is written once on the group, and texts inside
    /// repeat only what differs (32 bit numbers a row would otherwise triple the file).
    Group {
        style: TextStyle,
        children: Vec<Element>,
    },
}

/// Text attributes inherited by the elements inside a [`Element::Group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextStyle {
    pub size: u32,
    pub anchor: Anchor,
    pub fill: &'static str,
}

/// What the root `<svg>` element sets.
const ROOT_STYLE: TextStyle = TextStyle {
    size: 12,
    anchor: Anchor::Start,
    fill: "#000000",
};

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
    // Most text (bit numbers, names) needs no escaping: copy it whole.
    if !text
        .bytes()
        .any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'') || b < 0x20)
    {
        out.push_str(text);
        return;
    }
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
             viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"{size}\" role=\"img\">",
            w = self.width,
            h = self.height,
            size = ROOT_STYLE.size
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
            render_element(e, ROOT_STYLE, &mut o);
        }
        o.push_str("</svg>\n");
        o
    }
}

/// Text style attributes that differ from the inherited `style`.
fn style_attributes(o: &mut String, size: u32, anchor: Anchor, fill: &str, inherited: TextStyle) {
    if size != inherited.size {
        attr_int(o, " font-size=\"", i64::from(size));
    }
    if anchor != inherited.anchor {
        attr(o, " text-anchor=\"", anchor.as_str());
    }
    if fill != inherited.fill {
        attr(o, " fill=\"", fill);
    }
}

/// ` name="value"` for a value that needs no escaping (colours, keywords); `lead` is
/// ` name="`.
fn attr(o: &mut String, lead: &str, value: &str) {
    o.push_str(lead);
    o.push_str(value);
    o.push('"');
}

/// ` name="123"` (`lead` is ` name="`), without the formatting machinery: a 4096-register map
/// draws half a million numbers.
fn attr_int(o: &mut String, lead: &str, value: impl Into<i64>) {
    o.push_str(lead);
    let value: i64 = value.into();
    if value < 0 {
        o.push('-');
    }
    push_decimal(o, value.unsigned_abs());
    o.push('"');
}

fn render_element(e: &Element, style: TextStyle, o: &mut String) {
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
            o.push_str("<rect");
            attr_int(o, " x=\"", *x);
            attr_int(o, " y=\"", *y);
            attr_int(o, " width=\"", *width);
            attr_int(o, " height=\"", *height);
            attr(o, " fill=\"", fill);
            attr(o, " stroke=\"", stroke);
            match title {
                Some(t) => {
                    o.push_str("><title>");
                    escape(t, o);
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
            o.push_str("<line");
            attr_int(o, " x1=\"", *x1);
            attr_int(o, " y1=\"", *y1);
            attr_int(o, " x2=\"", *x2);
            attr_int(o, " y2=\"", *y2);
            attr(o, " stroke=\"", stroke);
            o.push_str("/>\n");
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
            o.push_str("<text");
            attr_int(o, " x=\"", *x);
            attr_int(o, " y=\"", *y);
            style_attributes(o, *size, *anchor, fill, style);
            if *bold {
                o.push_str(" font-weight=\"bold\"");
            }
            o.push('>');
            escape(text, o);
            o.push_str("</text>\n");
        }
        Element::Group {
            style: group,
            children,
        } => {
            o.push_str("<g");
            style_attributes(o, group.size, group.anchor, group.fill, style);
            o.push_str(">\n");
            for child in children {
                render_element(child, *group, o);
            }
            o.push_str("</g>\n");
        }
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

    #[test]
    fn numbers_are_written_in_full() {
        let mut s = Svg::new(10, 10, "t");
        s.rect(-12, 0, 1234567890, 7, "#ffffff");
        s.line(i32::MIN, i32::MAX, 10, 9, "#000000");
        let out = s.render();
        assert!(out.contains(
            "<rect x=\"-12\" y=\"0\" width=\"1234567890\" height=\"7\" fill=\"#ffffff\" stroke=\"#000000\"/>"
        ));
        assert!(out.contains(
            "<line x1=\"-2147483648\" y1=\"2147483647\" x2=\"10\" y2=\"9\" stroke=\"#000000\"/>"
        ));
    }

    #[test]
    fn group_style_is_written_once() {
        let mut s = Svg::new(10, 10, "t");
        let style = TextStyle {
            size: 10,
            anchor: Anchor::Middle,
            fill: "#555555",
        };
        s.push(Element::Group {
            style,
            children: vec![Element::Text {
                x: 1,
                y: 2,
                size: 10,
                anchor: Anchor::Middle,
                bold: false,
                fill: "#555555",
                text: "31".into(),
            }],
        });
        let out = s.render();
        assert!(out.contains(
            "<g font-size=\"10\" text-anchor=\"middle\" fill=\"#555555\">\n<text x=\"1\" y=\"2\">31</text>\n</g>"
        ));
    }
}
