// mcast4ai topology overlay: the client side of TopoOverlayMessageHandler.
// Requests: mcast4aiTopoStart {group?}, mcast4aiTopoShowGroup {id}, mcast4aiTopoStep {delta},
// mcast4aiTopoShowFabric {metric: 'groups'|'load'}, mcast4aiTopoStop.
// Replies: showHighlights (handled by the topology view itself), mcast4aiTopoGroups (the picker),
// mcast4aiTopoGroupDetail (a group's panel), mcast4aiTopoFabric (fabric summary), mcast4aiTopoError.
(function () {
    'use strict';

    // injected refs
    var $log, $loc, $rootScope, flash, wss, ps;

    // the topology view does not deactivate its overlay when the user leaves it (it deactivates and activates it
    // again on return): the panel and the server's listening stop with the view
    var leaving = null;

    var panelId = 'mcast4ai-topo-panel',
        panel = null,
        groups = [],
        shown = -1,
        showing = false,
        active = false,
        handlers = {
            mcast4aiTopoGroups: onGroups,
            mcast4aiTopoGroupDetail: onDetail,
            mcast4aiTopoFabric: onFabric,
            mcast4aiTopoError: onError,
        };

    // === the panel: picker, buttons, then the detail of what is shown

    function createPanel() {
        if (panel) {
            return;
        }
        panel = ps.createPanel(panelId, {
            edge: 'left',
            width: 340,
            margin: 20,
            hideMargin: -20,
        });
        panel.classed('mcast4ai-topo', true);
        render();
        panel.show();
    }

    function render(detail) {
        if (!panel) {
            return;
        }
        panel.empty();
        panel.append('h2').text('Multicast groups');
        var select = panel.append('select').attr('id', 'mcast4ai-topo-pick');
        fillPicker(select);
        select.on('change', function () {
            var id = this.value;
            if (id !== '-1') {
                showGroup(id);
            }
        });
        var bar = panel.append('div').classed('mcast4ai-topo-buttons', true);
        button(bar, 'Groups per link', function () { showFabric('groups'); });
        button(bar, 'Load per link', function () { showFabric('load'); });
        button(bar, 'Clear', clear);
        if (detail) {
            detail(panel.append('div').classed('mcast4ai-topo-detail', true));
        }
    }

    // the picker's options: the groups, and the one shown selected
    function fillPicker(select) {
        select.append('option').attr('value', '-1').text(groups.length ? '-- pick a group --' : '(no groups)');
        groups.forEach(function (g) {
            select.append('option').attr('value', String(g.id))
                .text(g.id + ' ' + g.name + ' ' + g.state + ' ' + g.mode + ' (' + g.receivers + ')');
        });
        select.property('value', String(shown));
    }

    function button(bar, text, cb) {
        bar.append('button').attr('type', 'button').text(text).on('click', cb);
    }

    function lines(div, title, items) {
        if (!items || !items.length) {
            return;
        }
        div.append('h3').text(title);
        var ul = div.append('ul');
        items.forEach(function (t) {
            ul.append('li').text(t);
        });
    }

    // === messages from the server

    function onGroups(data) {
        groups = data.groups || [];
        if (data.shown >= 0) {
            shown = data.shown;
        }
        var picker = panel && panel.el().select('#mcast4ai-topo-pick');
        if (picker && !picker.empty()) {
            // keep what the panel shows; only the picker's options change
            picker.selectAll('option').remove();
            fillPicker(picker);
        } else {
            render();
        }
    }

    function onDetail(data) {
        shown = data.id;
        showing = true;
        render(function (div) {
            div.append('h3').classed('mcast4ai-topo-title', true).text(data.title);
            var table = div.append('table');
            (data.props || []).forEach(function (p) {
                var tr = table.append('tr');
                tr.append('td').classed('label', true).text(p.label);
                tr.append('td').classed('value', true).text(p.value);
            });
            (data.sections || []).forEach(function (s) {
                lines(div, s.title, s.lines);
            });
        });
    }

    function onFabric(data) {
        shown = -1;
        showing = true;
        render(function (div) {
            var what = data.metric === 'load' ? 'load (ONOS port statistics, busier direction)'
                : 'live groups whose copies cross each link';
            div.append('h3').text('Links coloured by ' + what);
            var table = div.append('table');
            [['Links used', data.links], ['Hottest', data.hottest || '-'],
                ['Hottest value', data.metric === 'load' ? data.max + ' B/s' : data.max],
                ['P4 switches in place', data.p4.inPlace], ['P4 switches pending', data.p4.pending],
                ['P4 switches failed', data.p4.failed + (data.p4.problem ? ': ' + data.p4.problem : '')]]
                .forEach(function (row) {
                    var tr = table.append('tr');
                    tr.append('td').classed('label', true).text(row[0]);
                    tr.append('td').classed('value', true).text(row[1]);
                });
        });
    }

    function onError(data) {
        flash.flash('mcast4ai: ' + data.message);
        $log.warn('mcast4ai overlay:', data.message);
    }

    // === requests

    function start() {
        if (active) {
            return;
        }
        active = true;
        wss.bindHandlers(handlers);
        createPanel();
        leaving = $rootScope.$on('$routeChangeStart', function () {
            stop();
        });
        // the groups view links here with ?overlayId=mcast4ai-overlay&group=<id>
        var group = $loc.search().group;
        wss.sendEvent('mcast4aiTopoStart', group ? { group: String(group) } : {});
    }

    function stop() {
        if (!active) {
            return;
        }
        active = false;
        if (leaving) {
            leaving();
            leaving = null;
        }
        wss.sendEvent('mcast4aiTopoStop');
        wss.unbindHandlers(handlers);
        ps.destroyPanel(panelId);
        panel = null;
        shown = -1;
        showing = false;
    }

    function showGroup(id) {
        wss.sendEvent('mcast4aiTopoShowGroup', { id: String(id) });
    }

    function step(delta) {
        wss.sendEvent('mcast4aiTopoStep', { delta: delta });
    }

    function showFabric(metric) {
        wss.sendEvent('mcast4aiTopoShowFabric', { metric: metric });
        flash.flash('mcast4ai: links by ' + (metric === 'load' ? 'load' : 'groups'));
    }

    // clears what is shown; true if something was (ESC is ours then, else the topology view's)
    function clear() {
        var was = showing;
        shown = -1;
        showing = false;
        wss.sendEvent('mcast4aiTopoStop');
        wss.sendEvent('mcast4aiTopoStart', {});
        render();
        return was;
    }

    angular.module('ovMcast4aiTopov', [])
        .factory('Mcast4aiTopovService',
        ['$log', '$location', '$rootScope', 'FlashService', 'WebSocketService', 'PanelService',

            function (_$log_, _$loc_, _$rootScope_, _flash_, _wss_, _ps_) {
                $log = _$log_;
                $loc = _$loc_;
                $rootScope = _$rootScope_;
                flash = _flash_;
                wss = _wss_;
                ps = _ps_;

                return {
                    start: start,
                    stop: stop,
                    showGroup: showGroup,
                    step: step,
                    showFabric: showFabric,
                    clear: clear,
                    isActive: function () { return active; },
                };
            }]);
}());
