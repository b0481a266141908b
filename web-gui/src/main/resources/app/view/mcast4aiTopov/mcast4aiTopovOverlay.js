// mcast4ai topology overlay: registers with the topology view's overlay service. Picked from the
// topology toolbar, it shows a group's tree (picker in its panel, or arrows) or the fabric's links by
// groups crossing them (G) or by load (L); 0 or ESC clears.
(function () {
    'use strict';

    var $log, tov, mts;

    var overlay = {
        // NOTE: must match Mcast4aiTopoOverlay.ID
        overlayId: 'mcast4ai-overlay',
        glyphId: '*tree',
        tooltip: 'mcast4ai: multicast group trees and fabric load',

        glyphs: {
            tree: {
                vb: '0 0 110 110',
                d: 'M55,15a10,10,0,1,1,0,0.1zM50,25h10v20h-10z' +
                    'M25,45h60v10h-60zM25,55h10v20h-10zM75,55h10v20h-10z' +
                    'M30,85a10,10,0,1,1,0,0.1zM80,85a10,10,0,1,1,0,0.1z' +
                    'M50,55h10v20h-10zM55,85a10,10,0,1,1,0,0.1z',
            },
        },

        activate: function () {
            mts.start();
            $log.debug('mcast4ai overlay activated');
        },
        deactivate: function () {
            mts.stop();
            $log.debug('mcast4ai overlay deactivated');
        },

        keyBindings: {
            0: {
                cb: function () { mts.clear(); },
                tt: 'Clear the highlights',
                gid: 'm_xMark',
            },
            G: {
                cb: function () { mts.showFabric('groups'); },
                tt: 'Colour links by the groups crossing them',
                gid: 'm_relatedIntents',
            },
            L: {
                cb: function () { mts.showFabric('load'); },
                tt: 'Colour links by load (port statistics)',
                gid: 'm_allTraffic',
            },
            leftArrow: {
                cb: function () { mts.step(-1); },
                tt: 'Show the previous group',
                gid: 'm_prev',
            },
            rightArrow: {
                cb: function () { mts.step(1); },
                tt: 'Show the next group',
                gid: 'm_next',
            },
            _keyOrder: ['0', 'G', 'L', 'leftArrow', 'rightArrow'],
        },

        hooks: {
            // consumes ESC only when something is shown
            escape: function () {
                return mts.isActive() && mts.clear();
            },
        },
    };

    angular.module('ovMcast4aiTopov')
        .run(['$log', 'TopoOverlayService', 'Mcast4aiTopovService',

            function (_$log_, _tov_, _mts_) {
                $log = _$log_;
                tov = _tov_;
                mts = _mts_;
                tov.register(overlay);
            }]);
}());
