// Just enough of a browser for the page's pure modules under `node --test`: elements that keep
// their attributes, children and text, a document language and a localStorage. Installed on
// globalThis before a test imports a page module.

class Node {
  constructor(tag, ns = null) {
    this.tagName = tag;
    this.namespaceURI = ns;
    this.attributes = {};
    this.children = [];
    this.ownText = "";
    this.dataset = {};
  }

  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }

  getAttribute(name) {
    return this.attributes[name] ?? null;
  }

  append(...nodes) {
    for (const node of nodes) {
      const child = typeof node === "string" ? text(node) : node;
      child.parentNode = this;
      this.children.push(child);
    }
  }

  /** Put `other` where this node is under its parent (table/part.js redraws so). */
  replaceWith(other) {
    const parent = this.parentNode;
    if (!parent) return;
    parent.children[parent.children.indexOf(this)] = other;
    other.parentNode = parent;
    this.parentNode = null;
  }

  addEventListener() {}

  get textContent() {
    return this.ownText + this.children.map((c) => c.textContent).join("");
  }

  set textContent(value) {
    this.children = [];
    this.ownText = String(value);
  }

  get className() {
    return this.attributes.class ?? "";
  }

  set className(value) {
    this.attributes.class = String(value);
  }

  /** Every node below this one (itself included) that `test` accepts, in document order. */
  findAll(test) {
    const found = test(this) ? [this] : [];
    for (const child of this.children) found.push(...child.findAll(test));
    return found;
  }

  byTestId(id) {
    return this.findAll((n) => n.attributes["data-testid"] === id)[0] ?? null;
  }
}

function text(value) {
  const node = new Node("#text");
  node.ownText = String(value);
  return node;
}

const storage = new Map();

export function installBrowser(language = "ru") {
  globalThis.Node = Node;
  globalThis.document = {
    documentElement: { lang: language },
    createElement: (tag) => new Node(tag),
    createElementNS: (ns, tag) => new Node(tag, ns),
    createTextNode: text,
    createComment: () => new Node("#comment"),
  };
  globalThis.localStorage = {
    getItem: (key) => (storage.has(key) ? storage.get(key) : null),
    setItem: (key, value) => storage.set(key, String(value)),
    removeItem: (key) => storage.delete(key),
  };
  globalThis.localStorage.setItem("prefclub.lang", language);
}
