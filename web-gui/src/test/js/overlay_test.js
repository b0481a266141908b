// Runs the mcast4ai GUI scripts (the topology overlay and the groups view) in Node against stand-ins for the
// ONOS GUI1 services they use (angular's module registry, TopoOverlayService.register with the checks ONOS's
// makes, WebSocketService, PanelService with a d3-like element tree, $location, $rootScope, NavService,
// TableBuilderService), and checks what they register, send and render.
//
//   node web-gui/src/test/js/overlay_test.js
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const assert = require('assert');

const root = path.resolve(__dirname, '../../main/resources/app/view');

// ---- a d3-like element tree: what the panel renders
class El {
    constructor(tag) {
        this.tag = tag; this.attrs = {}; this.classes = new Set(); this.txt = ''; this.kids = [];
        this.handlers = {}; this.props = {}; this.parent = null;
    }
    append(tag) { const c = new El(tag); c.parent = this; this.kids.push(c); return c; }
    attr(k, v) { if (v === undefined) { return this.attrs[k]; } this.attrs[k] = v; return this; }
    classed(c, b) { if (b === undefined) { return this.classes.has(c); } if (b) { this.classes.add(c); } else { this.classes.delete(c); } return this; }
    text(t) { if (t === undefined) { return this.txt; } this.txt = String(t); return this; }
    on(e, fn) { this.handlers[e] = fn; return this; }
    property(k, v) { if (v === undefined) { return this.props[k]; } this.props[k] = v; return this; }
    remove() { if (this.parent) { this.parent.kids = this.parent.kids.filter(k => k !== this); } }
    all() { return [this].concat(...this.kids.map(k => k.all())); }
    select(sel) {
        const hit = this.all().find(e => sel.startsWith('#') ? e.attrs.id === sel.slice(1) : e.tag === sel);
        return hit || { empty: () => true };
    }
    selectAll(tag) {
        const hits = this.all().filter(e => e !== this && e.tag === tag);
        return { remove: () => hits.forEach(h => h.remove()), size: () => hits.length };
    }
    empty() { return false; }
    texts() { return this.all().map(e => e.txt).filter(t => t); }
}

// ---- ONOS GUI1 stand-ins
const sent = [];
let bound = null;
const panels = {};
let overlay = null;
let routeListener = null;
let search = {};
const navs = [];
let table = null;

const services = {
    $log: { debug() {}, log() {}, warn() {} },
    $location: { search: () => search },
    $rootScope: {
        $on(evt, cb) {
            assert.strictEqual(evt, '$routeChangeStart');
            routeListener = cb;
            return () => { routeListener = null; };
        },
    },
    FlashService: { flash() {} },
    WebSocketService: {
        sendEvent(type, payload) { sent.push({ type, payload }); },
        bindHandlers(map) { assert.strictEqual(bound, null, 'handlers bound twice'); bound = map; },
        unbindHandlers(map) { assert.strictEqual(bound, map, 'unbinds what it bound'); bound = null; },
    },
    PanelService: {
        createPanel(id, opts) {
            assert.ok(!panels[id], 'panel ' + id + ' created twice');
            assert.ok(opts.width > 0 && ['left', 'right'].includes(opts.edge), 'panel options');
            const el = new El('div');
            el.attrs.id = id;
            const p = {
                el: () => el, show() { p.shown = true; }, hide() { p.shown = false; },
                empty() { el.kids = []; }, append: tag => el.append(tag), classed: (c, b) => el.classed(c, b),
                shown: false,
            };
            panels[id] = p;
            return p;
        },
        destroyPanel(id) { assert.ok(panels[id], 'destroys a panel it made'); delete panels[id]; },
    },
    // what ONOS's TopoOverlayService.register checks, and a glyph's parts
    TopoOverlayService: {
        register(o) {
            assert.ok(o && o.overlayId, 'an overlay id');
            const kb = o.keyBindings;
            assert.ok(Array.isArray(kb._keyOrder), 'keyBindings._keyOrder');
            kb._keyOrder.forEach(k => {
                assert.ok(k === '-' || kb[k], 'a binding for ' + k);
                if (k !== '-') {
                    assert.strictEqual(typeof kb[k].cb, 'function', k + '.cb');
                    assert.ok(kb[k].tt && kb[k].gid, k + ' has a tooltip and a glyph');
                }
            });
            Object.values(o.glyphs || {}).forEach(g => assert.ok(g.vb && g.d, 'a glyph has vb and d'));
            assert.ok(o.glyphId[0] !== '*' || o.glyphs[o.glyphId.slice(1)], 'the toolbar glyph is defined');
            overlay = o;
        },
    },
    NavService: { navTo(view, params) { navs.push({ view, params }); } },
    TableBuilderService: { buildTable(o) { table = o; } },
};

// ---- angular's module registry: factories made on demand, run blocks run once loaded
const factories = {};
const runs = [];
const controllers = {};
function inject(spec) {
    const fn = spec[spec.length - 1];
    return fn(...spec.slice(0, -1).map(name => {
        if (services[name]) { return services[name]; }
        if (factories[name]) { return factories[name](); }
        if (name === '$scope') { return scope; }
        throw new Error('no service ' + name);
    }));
}
const made = {};
const mod = {
    factory(name, spec) {
        factories[name] = () => (made[name] = made[name] || inject(spec));
        return mod;
    },
    run(spec) { runs.push(spec); return mod; },
    controller(name, spec) { controllers[name] = spec; return mod; },
};
const modules = {};
global.angular = {
    module(name, deps) {
        if (deps) { modules[name] = true; } else { assert.ok(modules[name], 'module ' + name + ' defined first'); }
        return mod;
    },
};
const scope = { $on() {} };

for (const f of ['mcast4aiGroups/mcast4aiGroups.js', 'mcast4aiTopov/mcast4aiTopov.js',
    'mcast4aiTopov/mcast4aiTopovOverlay.js']) {
    vm.runInThisContext(fs.readFileSync(path.join(root, f), 'utf8'), { filename: f });
}
runs.forEach(inject);

let checks = 0;
function check(name, fn) { fn(); checks++; console.log('ok - ' + name); }
function last(type) { return sent.filter(m => m.type === type).pop(); }

check('the overlay registers with the topology view', () => {
    assert.ok(overlay, 'registered');
    assert.strictEqual(overlay.overlayId, 'mcast4ai-overlay');
    assert.deepStrictEqual(overlay.keyBindings._keyOrder, ['0', 'G', 'L', 'leftArrow', 'rightArrow']);
});

check('activating it opens the panel and asks for the group the URL names', () => {
    search = { overlayId: 'mcast4ai-overlay', group: '7' };
    overlay.activate();
    assert.deepStrictEqual(last('mcast4aiTopoStart').payload, { group: '7' });
    assert.deepStrictEqual(Object.keys(bound).sort(), ['mcast4aiTopoError', 'mcast4aiTopoFabric',
        'mcast4aiTopoGroupDetail', 'mcast4aiTopoGroups']);
    assert.ok(panels['mcast4ai-topo-panel'].shown);
});

check('the group list fills the picker, and picking sends the group', () => {
    bound.mcast4aiTopoGroups({ groups: [{ id: 7, name: 't/a', state: 'INSTALLED', mode: 'TREE', receivers: 3 },
        { id: 9, name: 't/b', state: 'DEGRADED', mode: 'BITMAP', receivers: 12 }], shown: 7 });
    const el = panels['mcast4ai-topo-panel'].el();
    const pick = el.select('#mcast4ai-topo-pick');
    assert.strictEqual(pick.kids.length, 3);
    assert.strictEqual(pick.props.value, '7');
    pick.handlers.change.call({ value: '9' });
    assert.deepStrictEqual(last('mcast4aiTopoShowGroup').payload, { id: '9' });
});

check('a group detail renders its title, properties and sections', () => {
    bound.mcast4aiTopoGroupDetail({ id: 9, title: 'Group 9: t/b', props: [{ label: 'State', value: 'DEGRADED: x' }],
        sections: [{ title: 'Paths', lines: ['h2: leaf1 > spine1 > leaf2'] }, { title: 'Unreachable', lines: [] }] });
    const texts = panels['mcast4ai-topo-panel'].el().texts();
    ['Group 9: t/b', 'State', 'DEGRADED: x', 'Paths', 'h2: leaf1 > spine1 > leaf2'].forEach(t =>
        assert.ok(texts.includes(t), t + ' in ' + texts));
    assert.ok(!texts.includes('Unreachable'), 'an empty section is left out');
    assert.strictEqual(panels['mcast4ai-topo-panel'].el().select('#mcast4ai-topo-pick').props.value, '9');
});

check('the keys ask for the fabric pictures and the next group', () => {
    overlay.keyBindings.G.cb();
    assert.deepStrictEqual(last('mcast4aiTopoShowFabric').payload, { metric: 'groups' });
    overlay.keyBindings.L.cb();
    assert.deepStrictEqual(last('mcast4aiTopoShowFabric').payload, { metric: 'load' });
    overlay.keyBindings.rightArrow.cb();
    assert.deepStrictEqual(last('mcast4aiTopoStep').payload, { delta: 1 });
    overlay.keyBindings.leftArrow.cb();
    assert.deepStrictEqual(last('mcast4aiTopoStep').payload, { delta: -1 });
    bound.mcast4aiTopoFabric({ metric: 'groups', links: 5, max: 2, hottest: 'a/1-b/2',
        p4: { inPlace: 2, pending: 1, failed: 0, problem: '' } });
    assert.ok(panels['mcast4ai-topo-panel'].el().texts().includes('a/1-b/2'));
});

check('ESC clears what is shown, and is the topology view\'s when nothing is', () => {
    const before = sent.length;
    assert.strictEqual(overlay.hooks.escape(), true);
    assert.deepStrictEqual(sent.slice(before).map(m => m.type), ['mcast4aiTopoStop', 'mcast4aiTopoStart']);
    assert.strictEqual(overlay.hooks.escape(), false);
});

check('leaving the topology view stops the overlay; deactivating after that sends nothing', () => {
    assert.ok(routeListener, 'listens for the view going');
    routeListener();
    assert.strictEqual(last('mcast4aiTopoStop').type, 'mcast4aiTopoStop');
    assert.strictEqual(bound, null);
    assert.ok(!panels['mcast4ai-topo-panel']);
    const before = sent.length;
    overlay.deactivate();
    assert.strictEqual(sent.length, before);
    search = {};
    overlay.activate();
    assert.deepStrictEqual(last('mcast4aiTopoStart').payload, {});
    overlay.deactivate();
    assert.ok(!panels['mcast4ai-topo-panel']);
});

check('the groups table opens a selected group on the topology with the overlay', () => {
    const ctrl = controllers.OvMcast4aiGroupsCtrl;
    assert.ok(ctrl, 'the groups view controller');
    inject(ctrl);
    assert.strictEqual(table.tag, 'mcast4aiGroup');
    scope.showOnTopo();
    assert.strictEqual(navs.length, 0, 'nothing selected, nowhere to go');
    scope.selId = 7;
    scope.showOnTopo();
    assert.deepStrictEqual(navs.pop(), { view: 'topo', params: { overlayId: 'mcast4ai-overlay', group: '7' } });
});

console.log('overlay_test: ' + checks + ' checks passed');
