//! A tool's `x-mcp-header` annotations: which of its parameters travel as `Mcp-Param-{Name}`
//! headers, read from its `inputSchema` and checked against the constraints of the transport
//! specification (MCP 2026-07-28, Streamable HTTP, "Custom Headers from Tool Parameters").
//!
//! Hand-written rather than done with a JSON Schema crate: no validator is needed (nothing is
//! validated against the schema), only a walk over the schema's positions that knows which
//! keywords keep a property "statically reachable", and the schema is read in place from the
//! frame, as everything else in this crate.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use smallvec::SmallVec;

use super::mirror::encoded;
use super::{Header, HeaderError};
use crate::json::{JsonKind, JsonStr, Lookup, RawJson};

/// The annotation keyword.
const ANNOTATION: &str = "x-mcp-header";

/// JSON Schema 2020-12 applicators whose value is one subschema, and `additionalItems` of the
/// earlier dialects a schema may name with `$schema` (MCP allows draft-07). Crossing any
/// applicator but `properties` leaves the chain of `properties` keys: what lies below is not
/// statically reachable. (`$ref` is not followed, and data keywords such as `default`,
/// `const`, `enum` and `examples` are not schemas: an `x-mcp-header` inside them is no
/// annotation.) An array value is read as a list of subschemas: the tuple form of `items`
/// before 2020-12.
const ONE_SUBSCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Applicators whose value is an array of subschemas.
const SUBSCHEMA_ARRAY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Applicators (and definition containers) whose value is an object of subschemas:
/// `dependencies` of the dialects before 2019-09 too, whose members that are lists of names
/// are no schemas.
const SUBSCHEMA_OBJECT: &[&str] = &[
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];

/// The JSON Schema type of an annotated parameter: the only three the specification allows
/// ("Parameters with type `number` are not permitted").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParamType {
    /// `"type": "string"`: the header carries the text (in the Base64 sentinel form when it is
    /// not plain ASCII).
    String,
    /// `"type": "integer"`: the header carries the number in decimal.
    Integer,
    /// `"type": "boolean"`: the header carries `true` or `false`.
    Boolean,
}

impl ParamType {
    fn of(type_keyword: &JsonStr<'_>) -> Option<ParamType> {
        [
            ("string", ParamType::String),
            ("integer", ParamType::Integer),
            ("boolean", ParamType::Boolean),
        ]
        .into_iter()
        .find_map(|(name, ty)| type_keyword.eq_str(name).then_some(ty))
    }
}

/// Why a tool's `x-mcp-header` annotations make its definition invalid. A client "MUST
/// reject tool definitions where any `x-mcp-header` value violates these constraints" and
/// leave the tool out of `tools/list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaError {
    /// The `inputSchema` is not valid JSON (RFC 8259, nested no deeper than the default
    /// limit), so its annotations cannot be known.
    Malformed,
    /// An annotation sits where no argument is: on the schema's root, or below a keyword other
    /// than `properties` (`items`, `anyOf`, `$defs`, …), where the parameter is not
    /// statically reachable through a chain of `properties`.
    Unreachable,
    /// The annotation's value is not a string.
    NotAString,
    /// The annotation's value is not an HTTP field-name token (`1*tchar`, RFC 9110 §5.6.2):
    /// empty, or holding a space, a `:`, a control character or a byte that is not ASCII.
    NotAToken,
    /// The annotated parameter's `type` is not `"string"`, `"integer"` or `"boolean"` (a
    /// `number`, an object, a list of types, or no `type` at all).
    NotPrimitive,
    /// Two annotations name the same header, compared case-insensitively.
    DuplicateHeader,
    /// A member that decides an annotation is spelt twice in one object (two `x-mcp-header`,
    /// two `type`, two `properties`, or a property on the way to an annotation declared twice):
    /// which one counts is up to the reader, so the header's meaning is unknown. Or a property
    /// on the way is named with a lone surrogate escape (`"\ud800"`): a reader decoding it to
    /// U+FFFD reads the argument `"\uFFFD"` in its place, one keeping it no text can name.
    Ambiguous,
}

impl SchemaError {
    /// A short description, for the warning a client logs when it drops the tool.
    pub const fn as_str(self) -> &'static str {
        match self {
            SchemaError::Malformed => "inputSchema is not valid JSON",
            SchemaError::Unreachable => {
                "x-mcp-header is not on a property reachable through `properties` alone"
            }
            SchemaError::NotAString => "x-mcp-header is not a string",
            SchemaError::NotAToken => "x-mcp-header is not an HTTP field-name token",
            SchemaError::NotPrimitive => {
                "x-mcp-header is on a parameter whose type is not string, integer or boolean"
            }
            SchemaError::DuplicateHeader => "x-mcp-header repeats another (case-insensitively)",
            SchemaError::Ambiguous => {
                "a member deciding an x-mcp-header is duplicated, or names a lone surrogate"
            }
        }
    }
}

impl core::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for SchemaError {}

/// An invalid tool definition: why, and which annotation (when one is to blame).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InvalidSchema<'a> {
    /// Why.
    pub error: SchemaError,
    /// The annotation's value, when it is a string.
    pub header: Option<JsonStr<'a>>,
    /// The name of the annotated property (the last `properties` key on the way to it), when
    /// there is one.
    pub property: Option<JsonStr<'a>>,
}

impl core::fmt::Display for InvalidSchema<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.error.as_str())?;
        match (self.header, self.property) {
            (Some(header), Some(property)) => write!(
                f,
                " (x-mcp-header {:?} on property {:?})",
                header.decode(),
                property.decode()
            ),
            (Some(header), None) => write!(f, " (x-mcp-header {:?})", header.decode()),
            // An annotation that is not a string: its property still tells where it is.
            (None, Some(property)) => write!(f, " (on property {:?})", property.decode()),
            (None, None) => Ok(()),
        }
    }
}

/// Its text begins with its [`SchemaError`]'s, so that error is not given again as the
/// [`source`](core::error::Error::source): a report of the error chain prints each text once.
///
/// ```
/// use std::error::Error;
/// use rpcwire::headers::{InvalidSchema, SchemaError};
/// let invalid = InvalidSchema { error: SchemaError::NotAString, header: None, property: None };
/// assert_eq!(invalid.to_string(), SchemaError::NotAString.to_string());
/// assert!(invalid.source().is_none());
/// ```
impl core::error::Error for InvalidSchema<'_> {}

/// One annotated parameter of a tool.
///
/// Its path is kept as positions in the property names of its tool, which all its parameters
/// share (each name decoded and held once): a schema of many annotations below a long chain of
/// `properties` holds that chain once, not once per annotation (4,000 annotations below 60
/// names of 8 KiB, a schema of 0.7 MB, held 1.9 GB).
#[derive(Clone)]
pub struct ToolParam {
    name: Box<str>,
    /// The chain of `properties` keys, root first, as positions in `keys`.
    path: Box<[u32]>,
    /// The property names on the paths of the tool's parameters, shared by them.
    keys: Arc<[Box<str>]>,
    ty: ParamType,
}

impl core::fmt::Debug for ToolParam {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ToolParam")
            .field("name", &self.name)
            .field("path", &self.path().collect::<Vec<_>>())
            .field("ty", &self.ty)
            .finish()
    }
}

/// Parameters are equal when their names, paths and types are (wherever their tools keep the
/// property names).
impl PartialEq for ToolParam {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.ty == other.ty && self.path().eq(other.path())
    }
}

impl Eq for ToolParam {}

impl core::hash::Hash for ToolParam {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.path.len().hash(state);
        self.path().for_each(|key| key.hash(state));
        self.ty.hash(state);
    }
}

impl ToolParam {
    /// The `depth`-th key of the path (`None` past its end).
    fn key(&self, depth: usize) -> Option<&str> {
        self.path.get(depth).map(|&at| &*self.keys[at as usize])
    }

    /// The annotation's value: the header is `Mcp-Param-{name}`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The header it asks for.
    pub fn header(&self) -> Header<'_> {
        Header::Param(&self.name)
    }

    /// The chain of `properties` keys from the schema's root to the parameter: the path of
    /// its value inside `params.arguments`.
    pub fn path(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        self.path.iter().map(|&at| &*self.keys[at as usize])
    }

    /// The parameter's declared type.
    pub fn ty(&self) -> ParamType {
        self.ty
    }
}

/// The `x-mcp-header` annotations of one tool's `inputSchema`, validated: the parameters a
/// client mirrors into `Mcp-Param-{Name}` headers when it calls the tool over Streamable HTTP
/// ([`Self::mirror`]), and that a server checks them against
/// ([`HeaderCheck::with_tool`](super::HeaderCheck::with_tool)).
///
/// A gateway reads each tool of a `tools/list` result once, keeps the valid ones by name, and
/// drops a tool whose annotations are invalid, as the specification requires of clients.
/// The walk takes the keywords of JSON Schema 2020-12 as the official Python SDK does (2.3,
/// `find_invalid_x_mcp_header`), and those of the earlier dialects a schema may name with
/// `$schema` (the tuple form of `items`, `additionalItems`, `dependencies`: below them no
/// property is statically reachable either), which that SDK does not enter. A duplicated
/// member that decides an annotation is refused here ([`SchemaError::Ambiguous`]) where that
/// SDK keeps the last, and so is a property on the way named with a lone surrogate escape,
/// which that SDK keeps as it is.
///
/// ```
/// use rpcwire::headers::{ParamType, SchemaError, ToolHeaders};
/// use rpcwire::RawJson;
///
/// let schema = RawJson::new(br#"{"type":"object","properties":{
///     "query":{"type":"string"},
///     "region":{"type":"string","x-mcp-header":"Region"},
///     "opts":{"type":"object","properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}}}}"#).unwrap();
/// let tool = ToolHeaders::from_input_schema(schema).unwrap();
/// let params: Vec<_> = tool.iter().map(|p| (p.name(), p.path().collect::<Vec<_>>(), p.ty())).collect();
/// assert_eq!(params, [
///     ("Region", vec!["region"], ParamType::String),
///     ("Limit", vec!["opts", "limit"], ParamType::Integer),
/// ]);
///
/// let arguments = RawJson::new(br#"{"query":"SELECT 1","region":"eu-west\u00e9","opts":{"limit":10}}"#).unwrap();
/// let headers: Vec<_> = tool.mirror(arguments).map(|(h, v)| (h.to_string(), v)).collect();
/// assert_eq!(headers, [
///     ("Mcp-Param-Region".to_string(), "=?base64?ZXUtd2VzdMOp?=".into()),
///     ("Mcp-Param-Limit".to_string(), "10".into()),
/// ]);
///
/// let number = RawJson::new(br#"{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}"#).unwrap();
/// let invalid = ToolHeaders::from_input_schema(number).unwrap_err();
/// assert_eq!(invalid.error, SchemaError::NotPrimitive);
/// assert_eq!(invalid.to_string(), r#"x-mcp-header is on a parameter whose type is not string, integer or boolean (x-mcp-header "N" on property "n")"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ToolHeaders {
    params: Vec<ToolParam>,
    /// The positions of the parameters in `params`, sorted by name, case-insensitively: a
    /// header is found by binary search.
    by_name: Vec<u32>,
}

/// A schema position waiting to be read: the value, and where the chain of `properties` keys
/// leading to it ends in the walk's arena (`None`: off the chain; `Some(ROOT)`: the root).
struct Position<'a> {
    schema: RawJson<'a>,
    chain: Option<u32>,
}

/// The arena index of the root, which is no property.
const ROOT: u32 = u32::MAX;

/// A property on a chain of `properties` keys: its name, the chain before it, whether its
/// name is declared twice in its `properties` object, and its position among the names the
/// parameters keep, once a parameter's path goes through it ([`NOT_KEPT`] before).
struct Link<'a> {
    key: JsonStr<'a>,
    parent: u32,
    duplicated: bool,
    kept: u32,
}

/// [`Link::kept`] of a property no parameter's path has gone through yet.
const NOT_KEPT: u32 = u32::MAX;

impl ToolHeaders {
    /// Reads and validates the annotations of a tool's `inputSchema` (the schema itself,
    /// not the tool). A schema that is not an object has no annotations. The parameters come
    /// in the order of their annotations in the schema.
    ///
    /// # Errors
    ///
    /// An [`InvalidSchema`]: [`SchemaError::Malformed`] when `schema` is not valid JSON (or is
    /// nested more than 127 levels deep), else the first annotation at fault, with the
    /// [`SchemaError`] that says which constraint it breaks, and its header and property
    /// where there are ones. The annotations are taken in the order their schemas (the
    /// objects holding them) open in the document: a schema's own before those of the
    /// schemas nested in it, wherever its `x-mcp-header` member stands.
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// use rpcwire::headers::{SchemaError, ToolHeaders};
    /// // `a`'s annotation is blamed, not `b`'s, written before it.
    /// let schema = RawJson::new(br#"{"properties":{"a":{"type":"object","properties":{"b":{"x-mcp-header":1}},"x-mcp-header":"A"}}}"#).unwrap();
    /// assert_eq!(ToolHeaders::from_input_schema(schema).unwrap_err().error, SchemaError::NotPrimitive);
    /// ```
    pub fn from_input_schema(schema: RawJson<'_>) -> Result<ToolHeaders, InvalidSchema<'_>> {
        Self::read(schema, true)
    }

    /// Validates the annotations of a tool's `inputSchema` as
    /// [`from_input_schema`](Self::from_input_schema) does, with the same answer, without
    /// keeping its parameters: for a proxy or a client that only drops the tools whose
    /// annotations are invalid, and would otherwise hold each parameter's name and path for
    /// nothing (a server's schema of many annotations below a deep chain of `properties`
    /// takes several times its own size so).
    ///
    /// # Errors
    ///
    /// Those of [`from_input_schema`](Self::from_input_schema), for the same schemas.
    ///
    /// ```
    /// use rpcwire::RawJson;
    /// use rpcwire::headers::{SchemaError, ToolHeaders};
    /// let good = RawJson::new(br#"{"properties":{"r":{"type":"string","x-mcp-header":"Region"}}}"#).unwrap();
    /// assert!(ToolHeaders::validate_input_schema(good).is_ok());
    /// let bad = RawJson::new(br#"{"properties":{"r":{"type":"object","x-mcp-header":"Region"}}}"#).unwrap();
    /// assert_eq!(ToolHeaders::validate_input_schema(bad).unwrap_err().error, SchemaError::NotPrimitive);
    /// ```
    pub fn validate_input_schema(schema: RawJson<'_>) -> Result<(), InvalidSchema<'_>> {
        Self::read(schema, false).map(drop)
    }

    /// [`from_input_schema`](Self::from_input_schema); without `keep`, the parameters are
    /// checked but not kept (the answer has none).
    fn read(schema: RawJson<'_>, keep: bool) -> Result<ToolHeaders, InvalidSchema<'_>> {
        let invalid = |error, header, property| InvalidSchema {
            error,
            header,
            property,
        };
        // Strictly valid, so that every object's members can be read to its end: an
        // annotation past a spot a lazy walk cannot read would go unseen.
        let schema = RawJson::new_strict(schema.as_bytes())
            .ok_or_else(|| invalid(SchemaError::Malformed, None, None))?;
        let mut links: Vec<Link<'_>> = Vec::new();
        // The names of the properties on the parameters' paths, each decoded once
        // ([`Link::kept`]), and each parameter's path as their positions: its name, the key
        // of its property, and its path.
        let mut keys: Vec<Box<str>> = Vec::new();
        let mut found: Vec<(Box<str>, Box<[u32]>, ParamType)> = Vec::new();
        let mut seen_names: BTreeSet<String> = BTreeSet::new();
        let mut stack = Vec::from([Position {
            schema,
            chain: Some(ROOT),
        }]);

        // The positions below the one being read, in document order; pushed reversed, so that
        // the walk reads the schema in document order and blames the first annotation at
        // fault (for a repeated header, the repeat).
        let mut below: Vec<Position<'_>> = Vec::new();
        while let Some(Position { schema, chain }) = stack.pop() {
            if schema.kind() != JsonKind::Object {
                continue;
            }
            below.clear();
            // The members that decide an annotation, and how many times each is spelt.
            let (mut annotation, mut annotations) = (None, 0);
            let (mut ty, mut types) = (None, 0);
            let mut properties = 0;
            // The properties, linked to the chain when it goes on.
            let first = links.len();
            for (key, value) in schema.members() {
                if key.eq_str(ANNOTATION) {
                    (annotation, annotations) = (Some(value), annotations + 1);
                } else if key.eq_str("type") {
                    (ty, types) = (Some(value), types + 1);
                } else if key.eq_str("properties") {
                    properties += 1;
                    for (key, value) in value.members() {
                        let chain = chain.map(|parent| {
                            links.push(Link {
                                key,
                                parent,
                                duplicated: false,
                                kept: NOT_KEPT,
                            });
                            (links.len() - 1) as u32
                        });
                        below.push(Position {
                            schema: value,
                            chain,
                        });
                    }
                } else if ONE_SUBSCHEMA.iter().any(|k| key.eq_str(k)) {
                    // One subschema, or a list of them (`items` before 2020-12).
                    below.push(Position {
                        schema: value,
                        chain: None,
                    });
                    below.extend(value.elements().map(|schema| Position {
                        schema,
                        chain: None,
                    }));
                } else if SUBSCHEMA_ARRAY.iter().any(|k| key.eq_str(k)) {
                    below.extend(value.elements().map(|schema| Position {
                        schema,
                        chain: None,
                    }));
                } else if SUBSCHEMA_OBJECT.iter().any(|k| key.eq_str(k)) {
                    below.extend(value.members().map(|(_, schema)| Position {
                        schema,
                        chain: None,
                    }));
                }
            }

            // A name declared twice, and every name when `properties` itself is, leads to an
            // ambiguous annotation.
            if properties > 1 {
                links[first..]
                    .iter_mut()
                    .for_each(|link| link.duplicated = true);
            }
            mark_duplicates(&mut links[first..]);
            stack.extend(below.drain(..).rev());

            let Some(annotation) = annotation else {
                continue;
            };
            let header = annotation.as_str();
            let property = chain.filter(|&c| c != ROOT).map(|c| links[c as usize].key);
            let fail = |error| Err(invalid(error, header, property));
            if annotations > 1 || types > 1 {
                return fail(SchemaError::Ambiguous);
            }
            let Some(chain) = chain.filter(|&c| c != ROOT) else {
                return fail(SchemaError::Unreachable);
            };
            let Some(name) = header else {
                return fail(SchemaError::NotAString);
            };
            let name = name.decode();
            if !is_token(&name) {
                return fail(SchemaError::NotAToken);
            }
            let Some(ty) = ty.and_then(|t| t.as_str()).and_then(|t| ParamType::of(&t)) else {
                return fail(SchemaError::NotPrimitive);
            };
            // (Each name on the way is read, and kept, once for all the annotations below it:
            // a long chain of `properties` is not read again, nor copied, for each.)
            let mut path = Vec::new();
            let mut at = chain;
            while at != ROOT {
                let link = &mut links[at as usize];
                if link.duplicated {
                    return fail(SchemaError::Ambiguous);
                }
                if link.kept == NOT_KEPT {
                    if link.key.has_lone_surrogate() {
                        return fail(SchemaError::Ambiguous);
                    }
                    // (Not kept, only checked: any position but `NOT_KEPT` says so.)
                    link.kept = keys.len() as u32;
                    if keep {
                        keys.push(Box::from(link.key.decode()));
                    }
                }
                if keep {
                    path.push(link.kept);
                }
                at = link.parent;
            }
            if !seen_names.insert(name.to_ascii_lowercase()) {
                return fail(SchemaError::DuplicateHeader);
            }
            if keep {
                path.reverse();
                found.push((Box::from(name), path.into_boxed_slice(), ty));
            }
        }
        let keys: Arc<[Box<str>]> = keys.into();
        let params: Vec<ToolParam> = found
            .into_iter()
            .map(|(name, path, ty)| ToolParam {
                name,
                path,
                keys: Arc::clone(&keys),
                ty,
            })
            .collect();
        let mut by_name: Vec<u32> = (0..params.len() as u32).collect();
        by_name.sort_unstable_by(|&a, &b| {
            cmp_ignore_case(&params[a as usize].name, &params[b as usize].name)
        });
        Ok(ToolHeaders { params, by_name })
    }

    /// The position and name of the parameter whose header is `Mcp-Param-{name}`, names
    /// compared case-insensitively (they are unique so).
    pub(super) fn find(&self, name: &str) -> Option<(usize, &str)> {
        let at = self
            .by_name
            .binary_search_by(|&i| cmp_ignore_case(&self.params[i as usize].name, name))
            .ok()?;
        let i = self.by_name[at] as usize;
        Some((i, &self.params[i].name))
    }

    /// The values of the parameters in `arguments` (a `tools/call`'s `params.arguments`), in
    /// order.
    pub(super) fn lookup_all<'v>(&self, arguments: RawJson<'v>) -> SmallVec<[Lookup<'v>; 4]> {
        let params = &self.params;
        lookup_all(arguments, params.len(), |i, depth| params[i].key(depth))
    }

    /// The annotated parameters, in the order of their annotations in the schema.
    pub fn iter(&self) -> core::slice::Iter<'_, ToolParam> {
        self.params.iter()
    }

    /// How many parameters are annotated.
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// Whether no parameter is annotated.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The `Mcp-Param-*` headers a `tools/call` with these `arguments` carries: for each
    /// annotated parameter whose value is present and not `null`, its header and value, as
    /// the specification converts it. A string is its text, through
    /// [`encode_header_value`](super::encode_header_value) (the Base64 sentinel form when it is
    /// not plain ASCII); a boolean is `true` or `false`; an integer parameter's number is its
    /// decimal integer form (`1.0e3` is `1000`: "Convert to decimal string representation",
    /// and a server may compare only plain decimals numerically, as the Python SDK's does);
    /// any other number (of a parameter whose value breaks its schema) is its JSON spelling
    /// (the Python SDK renders a float as Python prints it, `1000.0`). A value with no
    /// rendering (an object, an array, a string holding a lone surrogate escape, which has no
    /// UTF-8 form, and an integer parameter's number that is not an integer within ±(2^53−1):
    /// `4.5`, `9007199254740992`, `1e400`, as "Integer values MUST be within the safe range
    /// for integers represented using IEEE754 double-precision floating point numbers", which
    /// the C# SDK enforces and the Python SDK, 2.3, does not) and a
    /// value spelt twice (`{"region":"eu","region":"us"}`: which one a server acts on is
    /// unknown) give no header; a server that checks them refuses such a call whatever
    /// headers it carries, but for the number out of range, which it compares by value
    /// ([`mirror_headers`](super::mirror_headers) refuses each before it is sent).
    pub fn mirror<'v>(
        &'v self,
        arguments: RawJson<'v>,
    ) -> impl Iterator<Item = (Header<'v>, Cow<'v, str>)> + 'v {
        self.mirror_each(arguments)
            .filter_map(|header| header.ok().flatten())
    }

    /// [`Self::mirror`], parameter by parameter: no header (`Ok(None)`) for a value absent
    /// or `null`, and for one a server would refuse whatever the headers, why:
    /// [`HeaderError::Malformed`] for a value with no rendering, [`HeaderError::Mismatch`]
    /// for one spelt twice.
    pub(super) fn mirror_each<'v>(
        &'v self,
        arguments: RawJson<'v>,
    ) -> impl Iterator<Item = Result<Option<(Header<'v>, Cow<'v, str>)>, HeaderError<'v>>> + 'v
    {
        let values = self.lookup_all(arguments);
        self.params.iter().zip(values).map(|(param, value)| {
            let value = match value {
                Lookup::Absent => return Ok(None),
                Lookup::Ambiguous | Lookup::Malformed => {
                    return Err(HeaderError::Mismatch(param.header()));
                }
                Lookup::Found(value) => value,
            };
            let rendered = match value.kind() {
                JsonKind::Null => return Ok(None),
                JsonKind::String => value.as_str().and_then(encoded),
                JsonKind::Number if param.ty == ParamType::Integer => safe_integer(value.as_text()),
                JsonKind::Bool | JsonKind::Number => Some(Cow::Borrowed(value.as_text())),
                JsonKind::Object | JsonKind::Array => None,
            };
            match rendered {
                Some(rendered) => Ok(Some((param.header(), rendered))),
                None => Err(HeaderError::Malformed(param.header())),
            }
        })
    }
}

impl<'t> IntoIterator for &'t ToolHeaders {
    type Item = &'t ToolParam;
    type IntoIter = core::slice::Iter<'t, ToolParam>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Marks the properties of one `properties` object whose name is declared twice (compared
/// after unescaping).
fn mark_duplicates(links: &mut [Link<'_>]) {
    if links.len() < 2 {
        return;
    }
    let mut names: Vec<(Cow<'_, str>, usize)> = links
        .iter()
        .enumerate()
        .map(|(i, link)| (link.key.decode(), i))
        .collect();
    names.sort_unstable();
    for pair in names.windows(2) {
        if pair[0].0 == pair[1].0 {
            links[pair[0].1].duplicated = true;
            links[pair[1].1].duplicated = true;
        }
    }
}

/// How many paths [`lookup_all`] follows one by one, each from the top: past it, each object
/// on the way is read once for all of them.
const ONE_BY_ONE: usize = 8;

/// The values at `n` paths in `arguments`, each as [`RawJson::lookup_path`] finds it (absent,
/// found, or ambiguous: spelt twice, or below a value that is), `key(i, depth)` being the
/// `depth`-th key of the `i`-th path.
///
/// Past [`ONE_BY_ONE`] paths, one walk reads each object once, finding the keys asked of it
/// by binary search: a tool with many annotations, called with large arguments, costs the
/// size of the arguments (times a logarithm), not that times the annotations (1,000 of them
/// over 1 MB of arguments took a minute a pass in a debug build).
pub(super) fn lookup_all<'v, 'p>(
    arguments: RawJson<'v>,
    n: usize,
    key: impl Fn(usize, usize) -> Option<&'p str> + Copy,
) -> SmallVec<[Lookup<'v>; 4]> {
    if n <= ONE_BY_ONE {
        return (0..n)
            .map(|i| {
                (0..)
                    .map_while(|depth| key(i, depth))
                    .fold(Lookup::Found(arguments), |at, k| match at {
                        Lookup::Found(v) => v.lookup(k),
                        other => other,
                    })
            })
            .collect();
    }
    // The paths sorted, so that those sharing a prefix are together and those ending at it
    // come first.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        (0..)
            .map(|depth| (key(a, depth), key(b, depth)))
            .find(|(x, y)| x != y || x.is_none())
            .map_or(core::cmp::Ordering::Equal, |(x, y)| x.cmp(&y))
    });
    let mut out: SmallVec<[Lookup<'v>; 4]> = (0..n).map(|_| Lookup::Absent).collect();
    walk(Lookup::Found(arguments), &order, 0, key, &mut out);
    out
}

/// [`lookup_all`] below one value: `at`, found at the shared prefix of the paths of `group`
/// (sorted), `depth` keys long.
fn walk<'v, 'p>(
    at: Lookup<'v>,
    group: &[usize],
    depth: usize,
    key: impl Fn(usize, usize) -> Option<&'p str> + Copy,
    out: &mut [Lookup<'v>],
) {
    let ended = group
        .iter()
        .take_while(|&&i| key(i, depth).is_none())
        .count();
    let (ended, group) = group.split_at(ended);
    for &i in ended {
        out[i] = at;
    }
    let Lookup::Found(object) = at else {
        for &i in group {
            out[i] = at;
        }
        return;
    };
    // The keys asked of this value, sorted, each with the end of its run in `group` and what
    // the value holds under it.
    let mut runs: Vec<(&str, usize, Lookup<'v>)> = Vec::new();
    for (end, &i) in (1..).zip(group) {
        let Some(k) = key(i, depth) else { continue };
        match runs.last_mut() {
            Some((last, run_end, _)) if *last == k => *run_end = end,
            _ => runs.push((k, end, Lookup::Absent)),
        }
    }
    if runs.is_empty() {
        return;
    }
    let mut members = object.members();
    for (k, v) in members.by_ref() {
        // A lone surrogate equals no key (as `JsonStr::eq_str` has it).
        if k.has_lone_surrogate() {
            continue;
        }
        let k = k.decode();
        if let Ok(r) = runs.binary_search_by(|(run, _, _)| (*run).cmp(&*k)) {
            let found = &mut runs[r].2;
            *found = match found {
                Lookup::Absent => Lookup::Found(v),
                _ => Lookup::Ambiguous,
            };
        }
    }
    // Past a malformed spot any key may occur again, unseen.
    let malformed = members.stopped_early();
    let mut start = 0;
    for (_, end, found) in runs {
        let found = if malformed { Lookup::Malformed } else { found };
        walk(found, &group[start..end], depth + 1, key, out);
        start = end;
    }
}

/// The largest magnitude of an integer parameter's value: "Integer values MUST be within the
/// safe range for integers represented using IEEE754 double-precision floating point numbers
/// (−2^53+1 to 2^53−1)" (MCP 2026-07-28, tools, `x-mcp-header`).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// An integer parameter's header value: the decimal form of `token` when it is an integer
/// within the safe range, however the body spells it (`1.0e3` → `1000`), else none: the
/// transport working group's reading of the range rule is that any other number "produce\[s\]
/// an error" on the client, as it does in the C# SDK.
fn safe_integer(token: &str) -> Option<Cow<'_, str>> {
    let decimal = decimal(token);
    let n: i64 = decimal.parse().ok()?;
    // (Not `n.abs()`, which overflows at `i64::MIN`.)
    (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER)
        .contains(&n)
        .then_some(decimal)
}

/// The decimal integer form of the JSON number `token` (`1.0e3` → `1000`, `-0` → `0`), or
/// `token` itself when it is already one, when its value is not an integer, or when the
/// integer has more than 64 digits (a short exponent can ask for a billion).
fn decimal(token: &str) -> Cow<'_, str> {
    const MAX_DIGITS: usize = 64;
    let (negative, rest) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    let plain = !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    if plain && (rest.len() == 1 || !rest.starts_with('0')) && token != "-0" {
        return Cow::Borrowed(token);
    }
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, ""),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || int.bytes().chain(frac.bytes());
    let leading = digits().take_while(|&d| d == b'0').count();
    let significant: Vec<u8> = digits().skip(leading).collect();
    let Some(last) = significant.iter().rposition(|&d| d != b'0') else {
        return Cow::Borrowed("0");
    };
    let significant = &significant[..=last];
    // The exponent, when it is short enough to matter: a longer one puts the point a billion
    // digits away, one way or the other.
    let (exp_negative, exp_digits) = match exponent.as_bytes().first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    let exp_digits = exp_digits.trim_start_matches('0');
    if exp_digits.len() > 9 {
        return Cow::Borrowed(token);
    }
    let exp: i64 = exp_digits.parse().unwrap_or(0);
    // Digits before the point.
    let point = int.len() as i64 - leading as i64 + if exp_negative { -exp } else { exp };
    if point < significant.len() as i64 || point > MAX_DIGITS as i64 {
        return Cow::Borrowed(token);
    }
    let mut out = String::with_capacity(point as usize + 1);
    if negative {
        out.push('-');
    }
    out.extend(significant.iter().map(|&d| char::from(d)));
    out.extend(core::iter::repeat_n(
        '0',
        point as usize - significant.len(),
    ));
    Cow::Owned(out)
}

/// `a` against `b`, ASCII letters compared case-insensitively.
fn cmp_ignore_case(a: &str, b: &str) -> core::cmp::Ordering {
    let a = a.bytes().map(|b| b.to_ascii_lowercase());
    a.cmp(b.bytes().map(|b| b.to_ascii_lowercase()))
}

/// Whether `name` is an HTTP field-name token: one or more `tchar` (RFC 9110 §5.6.2).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}
