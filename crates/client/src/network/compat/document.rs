//! A GraphQL executable document (operations and fragments), parsed from text
//! as the specification writes it (October 2021, section 2): what the
//! compatibility check validates. Only what validation needs is kept: no
//! positions beyond the parse error's, block strings unindented as they come.

use std::fmt;

/// A document: its operations and fragment definitions.
#[derive(Debug, Default)]
pub(super) struct Document {
    pub operations: Vec<Operation>,
    pub fragments: Vec<Fragment>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OperationKind {
    Query,
    Mutation,
    Subscription,
}

impl fmt::Display for OperationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Query => "query",
            Self::Mutation => "mutation",
            Self::Subscription => "subscription",
        })
    }
}

#[derive(Debug)]
pub(super) struct Operation {
    pub kind: OperationKind,
    pub name: Option<String>,
    pub variables: Vec<VariableDefinition>,
    pub directives: Vec<Directive>,
    pub selections: Vec<Selection>,
}

#[derive(Debug)]
pub(super) struct VariableDefinition {
    pub name: String,
    pub ty: TypeRef,
    pub default: Option<Value>,
    pub directives: Vec<Directive>,
}

/// A type as a document writes it: `Name`, `[Type]`, `Type!`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TypeRef {
    Named(String),
    List(Box<TypeRef>),
    NonNull(Box<TypeRef>),
}

impl TypeRef {
    /// The named type inside every wrapper.
    pub fn named(&self) -> &str {
        match self {
            Self::Named(name) => name,
            Self::List(inner) | Self::NonNull(inner) => inner.named(),
        }
    }
}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Named(name) => f.write_str(name),
            Self::List(inner) => write!(f, "[{inner}]"),
            Self::NonNull(inner) => write!(f, "{inner}!"),
        }
    }
}

#[derive(Debug)]
pub(super) enum Selection {
    Field(Field),
    FragmentSpread(FragmentSpread),
    InlineFragment(InlineFragment),
}

#[derive(Debug)]
pub(super) struct Field {
    pub alias: Option<String>,
    pub name: String,
    pub arguments: Vec<Argument>,
    pub directives: Vec<Directive>,
    pub selections: Vec<Selection>,
}

impl Field {
    /// The key of the field in the response: its alias, else its name.
    pub fn response_name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Argument {
    pub name: String,
    pub value: Value,
}

#[derive(Debug)]
pub(super) struct Directive {
    pub name: String,
    pub arguments: Vec<Argument>,
}

#[derive(Debug)]
pub(super) struct FragmentSpread {
    pub name: String,
    pub directives: Vec<Directive>,
}

#[derive(Debug)]
pub(super) struct InlineFragment {
    pub type_condition: Option<String>,
    pub directives: Vec<Directive>,
    pub selections: Vec<Selection>,
}

#[derive(Debug)]
pub(super) struct Fragment {
    pub name: String,
    pub type_condition: String,
    pub directives: Vec<Directive>,
    pub selections: Vec<Selection>,
}

/// A value as written in the document.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Variable(String),
    Int(String),
    Float(String),
    String(String),
    Boolean(bool),
    Null,
    Enum(String),
    List(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Variable(name) => write!(f, "${name}"),
            Self::Int(text) | Self::Float(text) | Self::Enum(text) => f.write_str(text),
            Self::String(text) => write!(f, "{text:?}"),
            Self::Boolean(b) => write!(f, "{b}"),
            Self::Null => f.write_str("null"),
            Self::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Self::Object(fields) => {
                f.write_str("{")?;
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}: {value}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Why a document does not parse, and where (line and column, from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("syntax error at {line}:{column}: {message}")]
pub(super) struct ParseError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// Parses `text` as an executable document.
pub(super) fn parse(text: &str) -> Result<Document, ParseError> {
    let tokens = lex(text)?;
    let mut parser = Parser {
        text,
        tokens,
        at: 0,
        depth: 0,
    };
    parser.document()
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// One of `! $ & ( ) : = @ [ ] { | }`.
    Punct(char),
    Spread,
    Name(String),
    Int(String),
    Float(String),
    Str(String),
    End,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Punct(c) => write!(f, "`{c}`"),
            Self::Spread => f.write_str("`...`"),
            Self::Name(name) => write!(f, "`{name}`"),
            Self::Int(text) | Self::Float(text) => write!(f, "`{text}`"),
            Self::Str(_) => f.write_str("a string"),
            Self::End => f.write_str("the end of the document"),
        }
    }
}

/// The byte offset of each token beside it.
type Tokens = Vec<(Token, usize)>;

fn error_at(text: &str, offset: usize, message: String) -> ParseError {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    ParseError {
        message,
        line,
        column,
    }
}

fn lex(text: &str) -> Result<Tokens, ParseError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            // Ignored: white space, line terminators, commas, the byte order mark.
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
            0xEF if bytes[i..].starts_with("\u{feff}".as_bytes()) => i += 3,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
            }
            b'!' | b'$' | b'&' | b'(' | b')' | b':' | b'=' | b'@' | b'[' | b']' | b'{' | b'|'
            | b'}' => {
                tokens.push((Token::Punct(char::from(c)), i));
                i += 1;
            }
            b'.' => {
                if bytes[i..].starts_with(b"...") {
                    tokens.push((Token::Spread, i));
                    i += 3;
                } else {
                    return Err(error_at(text, i, "a lone `.`".into()));
                }
            }
            b'_' | b'A'..=b'Z' | b'a'..=b'z' => {
                let start = i;
                while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                tokens.push((Token::Name(text[start..i].to_owned()), start));
            }
            b'-' | b'0'..=b'9' => {
                let (token, end) = number(text, i)?;
                tokens.push((token, i));
                i = end;
            }
            b'"' => {
                let (value, end) = if bytes[i..].starts_with(b"\"\"\"") {
                    block_string(text, i)?
                } else {
                    string(text, i)?
                };
                tokens.push((Token::Str(value), i));
                i = end;
            }
            _ => {
                let shown = text[i..].chars().next().unwrap_or('?');
                return Err(error_at(text, i, format!("unexpected character {shown:?}")));
            }
        }
    }
    tokens.push((Token::End, text.len()));
    Ok(tokens)
}

/// An IntValue or FloatValue starting at `start`; the token and where it ends.
fn number(text: &str, start: usize) -> Result<(Token, usize), ParseError> {
    let bytes = text.as_bytes();
    let mut i = start;
    let digits = |i: &mut usize| {
        let from = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > from
    };
    if bytes[i] == b'-' {
        i += 1;
    }
    let int_start = i;
    if !digits(&mut i) {
        return Err(error_at(text, start, "a number without digits".into()));
    }
    if bytes[int_start] == b'0' && i - int_start > 1 {
        return Err(error_at(text, start, "a number with a leading zero".into()));
    }
    let mut float = false;
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        float = true;
        if !digits(&mut i) {
            return Err(error_at(text, start, "a number ending in `.`".into()));
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        float = true;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        if !digits(&mut i) {
            return Err(error_at(
                text,
                start,
                "a number with an empty exponent".into(),
            ));
        }
    }
    // A number may not run straight into a name or another number part.
    if i < bytes.len() && (bytes[i] == b'.' || bytes[i] == b'_' || bytes[i].is_ascii_alphabetic()) {
        return Err(error_at(text, i, "a number followed by a name".into()));
    }
    let literal = text[start..i].to_owned();
    Ok((
        if float {
            Token::Float(literal)
        } else {
            Token::Int(literal)
        },
        i,
    ))
}

/// A `"…"` string at `start`: its value and where it ends.
fn string(text: &str, start: usize) -> Result<(String, usize), ParseError> {
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((value, start + 1 + at + 1)),
            '\n' | '\r' => break,
            '\\' => {
                let escaped = match chars.next().map(|(_, c)| c) {
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some('/') => '/',
                    Some('b') => '\u{8}',
                    Some('f') => '\u{c}',
                    Some('n') => '\n',
                    Some('r') => '\r',
                    Some('t') => '\t',
                    Some('u') => {
                        let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                        u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| hex.len() == 4)
                            .and_then(char::from_u32)
                            .ok_or_else(|| {
                                error_at(text, start + 1 + at, "a bad unicode escape".into())
                            })?
                    }
                    _ => return Err(error_at(text, start + 1 + at, "a bad escape".into())),
                };
                value.push(escaped);
            }
            c => value.push(c),
        }
    }
    Err(error_at(text, start, "an unterminated string".into()))
}

/// A `"""…"""` block string at `start`: its raw value and where it ends.
fn block_string(text: &str, start: usize) -> Result<(String, usize), ParseError> {
    let body = start + 3;
    let mut i = body;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with("\\\"\"\"") {
            i += 4;
        } else if rest.starts_with("\"\"\"") {
            let value = text[body..i].replace("\\\"\"\"", "\"\"\"");
            return Ok((value, i + 3));
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    Err(error_at(text, start, "an unterminated block string".into()))
}

/// How deep selections, lists, objects and types may nest before the parser
/// refuses the document (a guard against a stack overflow).
const MAX_DEPTH: usize = 128;

struct Parser<'t> {
    text: &'t str,
    tokens: Tokens,
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        self.tokens.get(self.at).map_or(&Token::End, |(t, _)| t)
    }

    fn offset(&self) -> usize {
        self.tokens
            .get(self.at)
            .map_or(self.text.len(), |(_, at)| *at)
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        if self.at < self.tokens.len() {
            self.at += 1;
        }
        token
    }

    fn fail<T>(&self, expected: &str) -> Result<T, ParseError> {
        Err(error_at(
            self.text,
            self.offset(),
            format!("expected {expected}, found {}", self.peek()),
        ))
    }

    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Token::Punct(c)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let found = self.is_punct(c);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.fail(&format!("`{c}`"))
        }
    }

    fn name(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Token::Name(name) => {
                let name = name.clone();
                self.at += 1;
                Ok(name)
            }
            _ => self.fail("a name"),
        }
    }

    fn is_name(&self, word: &str) -> bool {
        matches!(self.peek(), Token::Name(n) if n == word)
    }

    fn nest(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(error_at(
                self.text,
                self.offset(),
                "the document nests too deeply".into(),
            ));
        }
        Ok(())
    }

    fn document(&mut self) -> Result<Document, ParseError> {
        let mut document = Document::default();
        loop {
            match self.peek() {
                Token::End if document.operations.is_empty() && document.fragments.is_empty() => {
                    return self.fail("an operation or a fragment");
                }
                Token::End => return Ok(document),
                Token::Punct('{') => document.operations.push(Operation {
                    kind: OperationKind::Query,
                    name: None,
                    variables: Vec::new(),
                    directives: Vec::new(),
                    selections: self.selection_set()?,
                }),
                Token::Name(word) if word == "fragment" => {
                    document.fragments.push(self.fragment()?);
                }
                Token::Name(word)
                    if matches!(word.as_str(), "query" | "mutation" | "subscription") =>
                {
                    document.operations.push(self.operation()?);
                }
                _ => return self.fail("an operation or a fragment"),
            }
        }
    }

    fn operation(&mut self) -> Result<Operation, ParseError> {
        let kind = match self.name()?.as_str() {
            "query" => OperationKind::Query,
            "mutation" => OperationKind::Mutation,
            _ => OperationKind::Subscription,
        };
        let name = match self.peek() {
            Token::Name(_) => Some(self.name()?),
            _ => None,
        };
        let mut variables = Vec::new();
        if self.eat_punct('(') {
            if self.is_punct(')') {
                return self.fail("a variable definition");
            }
            while !self.eat_punct(')') {
                self.expect_punct('$')?;
                let name = self.name()?;
                self.expect_punct(':')?;
                let ty = self.type_ref()?;
                let default = if self.eat_punct('=') {
                    Some(self.value(true)?)
                } else {
                    None
                };
                variables.push(VariableDefinition {
                    name,
                    ty,
                    default,
                    directives: self.directives(true)?,
                });
            }
        }
        Ok(Operation {
            kind,
            name,
            variables,
            directives: self.directives(false)?,
            selections: self.selection_set()?,
        })
    }

    fn fragment(&mut self) -> Result<Fragment, ParseError> {
        self.next(); // `fragment`
        if self.is_name("on") {
            return self.fail("a fragment name (not `on`)");
        }
        let name = self.name()?;
        if !self.is_name("on") {
            return self.fail("`on`");
        }
        self.next();
        Ok(Fragment {
            name,
            type_condition: self.name()?,
            directives: self.directives(false)?,
            selections: self.selection_set()?,
        })
    }

    fn type_ref(&mut self) -> Result<TypeRef, ParseError> {
        self.nest()?;
        let ty = if self.eat_punct('[') {
            let inner = self.type_ref()?;
            self.expect_punct(']')?;
            TypeRef::List(Box::new(inner))
        } else {
            TypeRef::Named(self.name()?)
        };
        self.depth -= 1;
        Ok(if self.eat_punct('!') {
            TypeRef::NonNull(Box::new(ty))
        } else {
            ty
        })
    }

    fn selection_set(&mut self) -> Result<Vec<Selection>, ParseError> {
        self.nest()?;
        self.expect_punct('{')?;
        if self.is_punct('}') {
            return self.fail("a selection");
        }
        let mut selections = Vec::new();
        while !self.eat_punct('}') {
            selections.push(self.selection()?);
        }
        self.depth -= 1;
        Ok(selections)
    }

    fn selection(&mut self) -> Result<Selection, ParseError> {
        if *self.peek() == Token::Spread {
            self.next();
            if self.is_name("on") {
                self.next();
                let type_condition = Some(self.name()?);
                return Ok(Selection::InlineFragment(InlineFragment {
                    type_condition,
                    directives: self.directives(false)?,
                    selections: self.selection_set()?,
                }));
            }
            if let Token::Name(_) = self.peek() {
                return Ok(Selection::FragmentSpread(FragmentSpread {
                    name: self.name()?,
                    directives: self.directives(false)?,
                }));
            }
            return Ok(Selection::InlineFragment(InlineFragment {
                type_condition: None,
                directives: self.directives(false)?,
                selections: self.selection_set()?,
            }));
        }
        let first = self.name()?;
        let (alias, name) = if self.eat_punct(':') {
            (Some(first), self.name()?)
        } else {
            (None, first)
        };
        let arguments = self.arguments(false)?;
        let directives = self.directives(false)?;
        let selections = if self.is_punct('{') {
            self.selection_set()?
        } else {
            Vec::new()
        };
        Ok(Selection::Field(Field {
            alias,
            name,
            arguments,
            directives,
            selections,
        }))
    }

    fn arguments(&mut self, constant: bool) -> Result<Vec<Argument>, ParseError> {
        let mut arguments = Vec::new();
        if self.eat_punct('(') {
            if self.is_punct(')') {
                return self.fail("an argument");
            }
            while !self.eat_punct(')') {
                let name = self.name()?;
                self.expect_punct(':')?;
                arguments.push(Argument {
                    name,
                    value: self.value(constant)?,
                });
            }
        }
        Ok(arguments)
    }

    fn directives(&mut self, constant: bool) -> Result<Vec<Directive>, ParseError> {
        let mut directives = Vec::new();
        while self.eat_punct('@') {
            directives.push(Directive {
                name: self.name()?,
                arguments: self.arguments(constant)?,
            });
        }
        Ok(directives)
    }

    /// A value; `constant` where the grammar allows no variable (defaults).
    fn value(&mut self, constant: bool) -> Result<Value, ParseError> {
        let value = match self.peek().clone() {
            Token::Punct('$') if !constant => {
                self.next();
                Value::Variable(self.name()?)
            }
            Token::Int(text) => {
                self.next();
                Value::Int(text)
            }
            Token::Float(text) => {
                self.next();
                Value::Float(text)
            }
            Token::Str(text) => {
                self.next();
                Value::String(text)
            }
            Token::Name(word) => {
                self.next();
                match word.as_str() {
                    "true" => Value::Boolean(true),
                    "false" => Value::Boolean(false),
                    "null" => Value::Null,
                    _ => Value::Enum(word),
                }
            }
            Token::Punct('[') => {
                self.next();
                self.nest()?;
                let mut items = Vec::new();
                while !self.eat_punct(']') {
                    items.push(self.value(constant)?);
                }
                self.depth -= 1;
                Value::List(items)
            }
            Token::Punct('{') => {
                self.next();
                self.nest()?;
                let mut fields = Vec::new();
                while !self.eat_punct('}') {
                    let name = self.name()?;
                    self.expect_punct(':')?;
                    fields.push((name, self.value(constant)?));
                }
                self.depth -= 1;
                Value::Object(fields)
            }
            _ => return self.fail("a value"),
        };
        Ok(value)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_with_variables_aliases_arguments_and_fragments_parses() {
        let document = parse(
            r#"# a comment
            mutation Sync($p: PatientInput!, $ids: [ID!] = ["a", "b"], $n: Int = -1) @x {
              saved: patient(patient: $p, metadata: {source: DIRECT_API, tags: [1, 2.5e3, null, true]}) {
                __typename
                ... on PatientPayload { patient { ...Fields } }
                ... @include(if: true) { __typename }
              }
            }
            fragment Fields on Patient { id }"#,
        )
        .unwrap();

        let operation = &document.operations[0];
        assert_eq!(operation.kind, OperationKind::Mutation);
        assert_eq!(operation.name.as_deref(), Some("Sync"));
        assert_eq!(operation.variables.len(), 3);
        assert_eq!(operation.variables[0].ty.to_string(), "PatientInput!");
        assert_eq!(operation.variables[1].ty.to_string(), "[ID!]");
        assert_eq!(
            operation.variables[2].default,
            Some(Value::Int("-1".into()))
        );
        let Selection::Field(field) = &operation.selections[0] else {
            panic!("{:?}", operation.selections[0]);
        };
        assert_eq!(field.response_name(), "saved");
        assert_eq!(field.name, "patient");
        assert_eq!(
            field.arguments[1].value.to_string(),
            "{source: DIRECT_API, tags: [1, 2.5e3, null, true]}"
        );
        assert_eq!(field.selections.len(), 3);
        assert_eq!(document.fragments[0].type_condition, "Patient");
    }

    #[test]
    fn strings_unescape_and_block_strings_keep_their_text() {
        let document = parse(r#"{ a(s: "x\"\u00e9\n", b: """ raw \""" text """) }"#).unwrap();

        let Selection::Field(field) = &document.operations[0].selections[0] else {
            panic!();
        };
        assert_eq!(field.arguments[0].value, Value::String("x\"é\n".into()));
        assert_eq!(
            field.arguments[1].value,
            Value::String(" raw \"\"\" text ".into())
        );
    }

    #[test]
    fn broken_documents_are_refused_with_their_place() {
        for (text, line, column) in [
            ("query Q { a ", 1, 13),
            ("query Q {\n  a(x: ) }", 2, 8),
            ("{ a(x: 01) }", 1, 8),
            ("{ a(x: \"open) }", 1, 8),
            (
                "query Q($v: Int) { a(x: $v) } fragment on on T { a }",
                1,
                40,
            ),
            ("{ }", 1, 3),
            ("query Q { a(x: $v = 1) }", 1, 19),
            ("", 1, 1),
        ] {
            let error = parse(text).expect_err(text);
            assert_eq!(
                (error.line, error.column),
                (line, column),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn a_variable_is_refused_where_the_value_must_be_constant() {
        assert!(parse("query Q($a: Int = $b) { a }").is_err());
        assert!(parse("query Q($a: Int = 1) { a(x: $a) }").is_ok());
    }

    #[test]
    fn nesting_beyond_the_limit_is_refused_not_overflowing_the_stack() {
        let deep = format!("{{ a(x: {}1{}) }}", "[".repeat(10_000), "]".repeat(10_000));

        let error = parse(&deep).unwrap_err();

        assert!(error.message.contains("nests too deeply"), "{error}");
    }
}
